// The fixed channel plans of RP002-1.0.x (US915 §2.5, AU915 §2.7, CN470-510 of LoRaWAN 1.0.x RP v1.0.2rB §2.6):
// numbered uplink channels whose number picks the RX1 downlink channel. Values from RP002-1.0.3's data-rate,
// maximum-payload ("repeater compatible" M) and RX1 DR tables.
import { ok, refuse, type Result } from "../result.js";
import { lora, mhz, rx1FromTable, sizes, type DataRate, type Region } from "./region-types.js";

const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);
const ratesOf = (entries: [number, DataRate][]): Record<number, DataRate> => Object.fromEntries(entries);
/** Rows `drs`, offsets 0..maxOffset: `base + dr − offset`, within [lowest, highest]. */
function clampTable(drs: number[], maxOffset: number, base: number, lowest: number, highest: number) {
  return Object.fromEntries(
    drs.map((dr) => [dr, range(maxOffset + 1).map((o) => Math.min(highest, Math.max(lowest, base + dr - o)))]),
  );
}

/** The uplink channel (0..63 narrow, 64..71 wide) of a frequency on a 64 + 8 channel plan, if it is one. */
function channelOf(hz: number, narrowBase: number, wideBase: number): number | undefined {
  const narrow = (hz - narrowBase) / 200_000;
  if (Number.isInteger(narrow) && narrow >= 0 && narrow < 64) return narrow;
  const wide = (hz - wideBase) / 1_600_000;
  if (Number.isInteger(wide) && wide >= 0 && wide < 8) return 64 + wide;
  return undefined;
}

function rx1On8Channels(name: string, narrowBase: number, wideBase: number) {
  return (uplinkHz: number): Result<number> => {
    const channel = channelOf(uplinkHz, narrowBase, wideBase);
    if (channel === undefined)
      return refuse(
        `${mhz(uplinkHz)} MHz is not a ${name} uplink channel (${mhz(narrowBase)} + 0.2n or ${mhz(wideBase)} + 1.6n MHz)`,
      );
    return ok(923_300_000 + (channel % 8) * 600_000);
  };
}

const DOWN_500: [number, DataRate][] = [12, 11, 10, 9, 8, 7].map((sf, i) => [8 + i, lora(sf, 500)]);

/** US902-928: 64 + 8 uplink channels, 8 downlink channels, RX2 923.3 MHz DR8; RX1 DR table of §2.5.7. */
export const US915: Region = {
  name: "US915",
  uplinkDataRates: ratesOf([
    [0, lora(10, 125)],
    [1, lora(9, 125)],
    [2, lora(8, 125)],
    [3, lora(7, 125)],
    [4, lora(8, 500)],
  ]),
  downlinkDataRates: ratesOf(DOWN_500),
  maxPayload: { ...sizes([19, 61, 133, 250, 250]), ...sizes([41, 117, 230, 230, 230, 230], 8) },
  maxRx1DrOffset: 3,
  rx1DrTable: clampTable(range(5), 3, 10, 8, 13),
  rx2: { frequency: 923_300_000, dataRate: 8 },
  receiveDelay1: 1,
  joinAcceptDelay1: 5,
  joinAcceptDelay2: 6,
  defaultChannels: [],
  cfListType: 1,
  // Sub-band 2 (channels 8..15 and 65), the one most gateways and networks use.
  gatewayChannels: range(8, 8).map((c) => 902_300_000 + c * 200_000),
  gatewayStdChannel: { frequency: 904_600_000, dataRate: 4 },
  band: [902_000_000, 928_000_000],
  dwellTime: false,
  codingRate: "4/5",
  rx1DataRate: rx1FromTable,
  rx1Frequency: rx1On8Channels("US915", 902_300_000, 903_000_000),
  downlinkPower: () => 20,
};

/** AU915-928: 64 + 8 uplink channels from 915.2 MHz, DR0..6 up, DR8..13 down, RX2 923.3 MHz DR8 (§2.7). */
export const AU915: Region = {
  name: "AU915",
  uplinkDataRates: ratesOf([
    ...[12, 11, 10, 9, 8, 7].map((sf, i): [number, DataRate] => [i, lora(sf, 125)]),
    [6, lora(8, 500)],
  ]),
  downlinkDataRates: ratesOf(DOWN_500),
  maxPayload: { ...sizes([59, 59, 59, 123, 230, 230, 230]), ...sizes([41, 117, 230, 230, 230, 230], 8) },
  maxRx1DrOffset: 5,
  rx1DrTable: clampTable(range(7), 5, 8, 8, 13),
  rx2: { frequency: 923_300_000, dataRate: 8 },
  receiveDelay1: 1,
  joinAcceptDelay1: 5,
  joinAcceptDelay2: 6,
  defaultChannels: [],
  cfListType: 1,
  gatewayChannels: range(8, 8).map((c) => 915_200_000 + c * 200_000),
  gatewayStdChannel: { frequency: 917_500_000, dataRate: 6 },
  band: [915_000_000, 928_000_000],
  dwellTime: false,
  codingRate: "4/5",
  rx1DataRate: rx1FromTable,
  rx1Frequency: rx1On8Channels("AU915", 915_200_000, 915_900_000),
  // 30 dBm EIRP allowed; 27 dBm sent leaves room for the antenna gain.
  downlinkPower: () => 27,
};

const CN_RATES = ratesOf([12, 11, 10, 9, 8, 7].map((sf, i) => [i, lora(sf, 125)]));

/** CN470-510: 96 uplink channels, 48 downlink channels, RX2 505.3 MHz DR0, no CFList; max EIRP 19.15 dBm. */
export const CN470: Region = {
  name: "CN470",
  uplinkDataRates: CN_RATES,
  downlinkDataRates: CN_RATES,
  maxPayload: sizes([59, 59, 59, 123, 230, 230]),
  maxRx1DrOffset: 5,
  rx1DrTable: clampTable(range(6), 5, 0, 0, 5),
  rx2: { frequency: 505_300_000, dataRate: 0 },
  receiveDelay1: 1,
  joinAcceptDelay1: 5,
  joinAcceptDelay2: 6,
  defaultChannels: [],
  gatewayChannels: range(8).map((c) => 470_300_000 + c * 200_000),
  band: [470_000_000, 510_000_000],
  dwellTime: false,
  codingRate: "4/5",
  rx1DataRate: rx1FromTable,
  rx1Frequency(uplinkHz) {
    const channel = (uplinkHz - 470_300_000) / 200_000;
    if (!Number.isInteger(channel) || channel < 0 || channel > 95)
      return refuse(`${mhz(uplinkHz)} MHz is not a CN470 uplink channel (470.3 + 0.2n MHz, n < 96)`);
    return ok(500_300_000 + (channel % 48) * 200_000);
  },
  downlinkPower: () => 19,
};
