// Regional parameters for LoRaWAN 1.0.x class A (LoRaWAN Regional Parameters v1.0.2rB / RP002-1.0.x): data rates,
// RX1 frequency and data-rate rules, RX2 defaults, receive delays, CFList and maximum payload sizes, for EU868,
// US915 and CN470 (the 1.0.x CN470-510 plan). Frequencies are whole Hz; the Semtech protocol's MHz only at the edge.
import { ok, refuse, type Result } from "./result.js";
import { hzToMhz, mhzToHz, parseLoraDatr, type RxPacket, type TxPacket } from "./radio-packet.js";

/** The regions supported, by the names `lora.region` uses. */
export type RegionName = "EU868" | "US915" | "CN470";

/** A data rate: LoRa with its spreading factor and bandwidth, or FSK with its bit rate. */
export type DataRate = { modu: "LORA"; sf: number; bwKHz: number } | { modu: "FSK"; bitRate: number };

/** Largest MACPayload (`m`) and FRMPayload without FOpts (`n`) in bytes at a data rate. */
export interface MaxPayloadSize {
  m: number;
  n: number;
}

/** Everything about a region that a class A network server needs. */
export interface Region {
  name: RegionName;
  /** Uplink data rates by DR index. */
  uplinkDataRates: Readonly<Record<number, DataRate>>;
  /** Downlink data rates by DR index (US915 uses DR8..13 downstream). */
  downlinkDataRates: Readonly<Record<number, DataRate>>;
  /** Maximum payload sizes by DR index, repeater-compatible values (every device and repeater accepts them). */
  maxPayload: Readonly<Record<number, MaxPayloadSize>>;
  /** Highest RX1DROffset a JoinAccept or RXParamSetupReq may set. */
  maxRx1DrOffset: number;
  /** RX2 default frequency (Hz) and data rate. */
  rx2: { frequency: number; dataRate: number };
  /** RECEIVE_DELAY1 in s (RX2 opens 1 s later); the JoinAccept RxDelay can change it for data frames. */
  receiveDelay1: number;
  /** JOIN_ACCEPT_DELAY1 and JOIN_ACCEPT_DELAY2 in s. */
  joinAcceptDelay1: number;
  joinAcceptDelay2: number;
  /** The channels every device of the region knows from the start (Hz); EU868's join channels. */
  defaultChannels: readonly number[];
  /** The CFList sent in a JoinAccept by default, if the region has one (EU868: 5 extra channels). */
  defaultCfList?: Buffer;
  /** Coding rate of downlinks. */
  codingRate: string;
  /** The RX1 data rate for an uplink data rate and an RX1DROffset, or why there is none. */
  rx1DataRate(uplinkDr: number, rx1DrOffset: number): Result<number>;
  /** The RX1 frequency (Hz) for an uplink frequency (Hz), or why the uplink frequency is not a channel here. */
  rx1Frequency(uplinkHz: number): Result<number>;
  /** Transmit power (dBm, as the packet forwarder's `powe`) for a downlink frequency, within the regional limit. */
  downlinkPower(hz: number): number;
}

const lora = (sf: number, bwKHz: number): DataRate => ({ modu: "LORA", sf, bwKHz });
const size = (m: number): MaxPayloadSize => ({ m, n: m - 8 });

function offsetProblem(region: Region, uplinkDr: number, offset: number): string | undefined {
  if (!(uplinkDr in region.uplinkDataRates)) return `DR${uplinkDr} is not an uplink data rate of ${region.name}`;
  if (!Number.isInteger(offset) || offset < 0 || offset > region.maxRx1DrOffset)
    return `RX1DROffset ${offset} must be 0..${region.maxRx1DrOffset} in ${region.name}`;
  return undefined;
}

/** RX1 data rate of the regions whose table is "uplink DR minus offset, not below DR0" (EU868, CN470). */
function minusOffset(this: Region, uplinkDr: number, offset: number): Result<number> {
  const problem = offsetProblem(this, uplinkDr, offset);
  return problem ? refuse(problem) : ok(Math.max(0, uplinkDr - offset));
}

const EU868_DATA_RATES: Record<number, DataRate> = {
  0: lora(12, 125),
  1: lora(11, 125),
  2: lora(10, 125),
  3: lora(9, 125),
  4: lora(8, 125),
  5: lora(7, 125),
  6: lora(7, 250),
  7: { modu: "FSK", bitRate: 50_000 },
};

/** EU863-870 (RP v1.0.2rB §2.2): RX1 on the uplink frequency, RX2 869.525 MHz DR0, CFList of 5 channels. */
const EU868: Region = {
  name: "EU868",
  uplinkDataRates: EU868_DATA_RATES,
  downlinkDataRates: EU868_DATA_RATES,
  maxPayload: {
    0: size(59),
    1: size(59),
    2: size(59),
    3: size(123),
    4: size(230),
    5: size(230),
    6: size(230),
    7: size(230),
  },
  maxRx1DrOffset: 5,
  rx2: { frequency: 869_525_000, dataRate: 0 },
  receiveDelay1: 1,
  joinAcceptDelay1: 5,
  joinAcceptDelay2: 6,
  defaultChannels: [868_100_000, 868_300_000, 868_500_000],
  codingRate: "4/5",
  rx1DataRate: minusOffset,
  rx1Frequency(uplinkHz) {
    if (uplinkHz < 863_000_000 || uplinkHz > 870_000_000)
      return refuse(`${hzToMhz(uplinkHz)} MHz is outside the EU868 band (863–870 MHz)`);
    return ok(uplinkHz);
  },
  // 25 mW ERP in most sub-bands; 500 mW ERP (27 dBm) in 869.4–869.65 MHz, where RX2 lies.
  downlinkPower: (hz) => (hz >= 869_400_000 && hz <= 869_650_000 ? 27 : 14),
};

/** US902-928 (RP v1.0.2rB §2.5): 64 + 8 uplink channels, 8 downlink channels, RX2 923.3 MHz DR8. */
const US915: Region = {
  name: "US915",
  uplinkDataRates: { 0: lora(10, 125), 1: lora(9, 125), 2: lora(8, 125), 3: lora(7, 125), 4: lora(8, 500) },
  downlinkDataRates: {
    8: lora(12, 500),
    9: lora(11, 500),
    10: lora(10, 500),
    11: lora(9, 500),
    12: lora(8, 500),
    13: lora(7, 500),
  },
  maxPayload: {
    0: size(19),
    1: size(61),
    2: size(133),
    3: size(250),
    4: size(250),
    8: size(41),
    9: size(117),
    10: size(230),
    11: size(230),
    12: size(230),
    13: size(230),
  },
  maxRx1DrOffset: 3,
  rx2: { frequency: 923_300_000, dataRate: 8 },
  receiveDelay1: 1,
  joinAcceptDelay1: 5,
  joinAcceptDelay2: 6,
  defaultChannels: [],
  codingRate: "4/5",
  // Table of RP §2.5.7: DR0..3 → DR10..13 less the offset, DR4 → DR13; never below DR8.
  rx1DataRate(uplinkDr, offset) {
    const problem = offsetProblem(this, uplinkDr, offset);
    return problem ? refuse(problem) : ok(Math.min(13, Math.max(8, 10 + uplinkDr - offset)));
  },
  rx1Frequency(uplinkHz) {
    const channel = usUplinkChannel(uplinkHz);
    if (channel === undefined)
      return refuse(`${hzToMhz(uplinkHz)} MHz is not a US915 uplink channel (902.3 + 0.2n or 903.0 + 1.6n MHz)`);
    return ok(923_300_000 + (channel % 8) * 600_000);
  },
  downlinkPower: () => 20,
};

/** The US915 uplink channel (0..63 at 125 kHz, 64..71 at 500 kHz) of a frequency, if it is one. */
function usUplinkChannel(hz: number): number | undefined {
  const narrow = (hz - 902_300_000) / 200_000;
  if (Number.isInteger(narrow) && narrow >= 0 && narrow < 64) return narrow;
  const wide = (hz - 903_000_000) / 1_600_000;
  if (Number.isInteger(wide) && wide >= 0 && wide < 8) return 64 + wide;
  return undefined;
}

/** CN470-510 (RP v1.0.2rB §2.6): 96 uplink channels, 48 downlink channels, RX2 505.3 MHz DR0, no CFList. */
const CN470: Region = {
  name: "CN470",
  uplinkDataRates: {
    0: lora(12, 125),
    1: lora(11, 125),
    2: lora(10, 125),
    3: lora(9, 125),
    4: lora(8, 125),
    5: lora(7, 125),
  },
  downlinkDataRates: {
    0: lora(12, 125),
    1: lora(11, 125),
    2: lora(10, 125),
    3: lora(9, 125),
    4: lora(8, 125),
    5: lora(7, 125),
  },
  maxPayload: { 0: size(59), 1: size(59), 2: size(59), 3: size(123), 4: size(230), 5: size(230) },
  maxRx1DrOffset: 5,
  rx2: { frequency: 505_300_000, dataRate: 0 },
  receiveDelay1: 1,
  joinAcceptDelay1: 5,
  joinAcceptDelay2: 6,
  defaultChannels: [],
  codingRate: "4/5",
  rx1DataRate: minusOffset,
  rx1Frequency(uplinkHz) {
    const channel = (uplinkHz - 470_300_000) / 200_000;
    if (!Number.isInteger(channel) || channel < 0 || channel > 95)
      return refuse(`${hzToMhz(uplinkHz)} MHz is not a CN470 uplink channel (470.3 + 0.2n MHz, n < 96)`);
    return ok(500_300_000 + (channel % 48) * 200_000);
  },
  // Max EIRP 19.15 dBm.
  downlinkPower: () => 19,
};

/** The EU868 CFList most networks send: 867.1, 867.3, 867.5, 867.7 and 867.9 MHz. */
export const EU868_EXTRA_CHANNELS: readonly number[] = [
  867_100_000, 867_300_000, 867_500_000, 867_700_000, 867_900_000,
];

/** The supported regions by name. */
export const REGIONS: Readonly<Record<RegionName, Region>> = { EU868, US915, CN470 };

const ALIASES: Readonly<Record<string, RegionName>> = {
  EU868: "EU868",
  "EU863-870": "EU868",
  EU863870: "EU868",
  US915: "US915",
  "US902-928": "US915",
  US902928: "US915",
  CN470: "CN470",
  "CN470-510": "CN470",
  CN470510: "CN470",
};

/** The region a device's `lora.region` names (EU868, US915, CN470; any case, `_` or `-` forms like EU863-870). */
export function regionByName(name: unknown): Result<Region> {
  if (typeof name !== "string") return refuse("region must be a name like EU868");
  const key = ALIASES[name.trim().toUpperCase().replace(/_/g, "-")];
  if (key === undefined) return refuse(`region "${name}" is not supported: use EU868, US915 or CN470`);
  return ok(REGIONS[key]);
}

function sameRate(a: DataRate, modu: string, datr: string | number): boolean {
  if (a.modu === "FSK") return modu === "FSK" && datr === a.bitRate;
  if (modu !== "LORA" || typeof datr !== "string") return false;
  const d = parseLoraDatr(datr);
  return d.ok && d.value.sf === a.sf && d.value.bwKHz === a.bwKHz;
}

/** The uplink DR index of a received packet's modulation and `datr` (`SF7BW125` is DR5 in EU868, DR3 in US915). */
export function uplinkDataRate(region: Region, rx: Pick<RxPacket, "modu" | "datr">): Result<number> {
  for (const [dr, rate] of Object.entries(region.uplinkDataRates))
    if (sameRate(rate, rx.modu, rx.datr)) return ok(Number(dr));
  return refuse(`${rx.modu} ${String(rx.datr)} is not an uplink data rate of ${region.name}`);
}

/** The `datr` of a downlink DR index: `SF12BW125` for LoRa, the bit rate for FSK. */
export function downlinkDatr(region: Region, dr: number): Result<string | number> {
  const rate = region.downlinkDataRates[dr];
  if (rate === undefined) return refuse(`DR${dr} is not a downlink data rate of ${region.name}`);
  return ok(rate.modu === "FSK" ? rate.bitRate : `SF${rate.sf}BW${rate.bwKHz}`);
}

/** CFList type 0 of a JoinAccept: up to 5 channel frequencies (Hz, multiples of 100 Hz), 3 bytes each, LSB first. */
export function encodeCfListFrequencies(frequencies: readonly number[]): Result<Buffer> {
  if (frequencies.length > 5) return refuse(`a CFList holds at most 5 frequencies, got ${frequencies.length}`);
  const out = Buffer.alloc(16);
  for (const [i, hz] of frequencies.entries()) {
    if (!Number.isInteger(hz) || hz <= 0 || hz % 100 !== 0 || hz / 100 > 0xffffff)
      return refuse(`CFList frequency ${hz} Hz must be a positive multiple of 100 Hz below 1677.7216 MHz`);
    out.writeUIntLE(hz / 100, i * 3, 3);
  }
  out[15] = 0;
  return ok(out);
}

/** CFList type 1 (RP002, US915/AU915): a mask of the enabled uplink channels 0..71 and CFListType 1. */
export function encodeCfListChannelMask(channels: readonly number[]): Result<Buffer> {
  const out = Buffer.alloc(16);
  for (const c of channels) {
    if (!Number.isInteger(c) || c < 0 || c > 71) return refuse(`channel ${c} must be 0..71`);
    out[c >> 3]! |= 1 << (c & 7);
  }
  out[15] = 1;
  return ok(out);
}

/** A decoded CFList: channel frequencies (type 0, Hz, zeros left out) or enabled channels (type 1). */
export type CfList = { type: 0; frequencies: number[] } | { type: 1; channels: number[] };

/** Decodes a 16-byte CFList of type 0 or 1. */
export function decodeCfList(bytes: Uint8Array): Result<CfList> {
  if (bytes.length !== 16) return refuse(`a CFList is 16 bytes, got ${bytes.length}`);
  const b = Buffer.from(bytes);
  if (b[15] === 0) {
    const frequencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const hz = b.readUIntLE(i * 3, 3) * 100;
      if (hz !== 0) frequencies.push(hz);
    }
    return ok({ type: 0, frequencies });
  }
  if (b[15] === 1) {
    const channels: number[] = [];
    for (let c = 0; c < 72; c++) if (b[c >> 3]! & (1 << (c & 7))) channels.push(c);
    return ok({ type: 1, channels });
  }
  return refuse(`CFListType ${b[15]} is not 0 (frequencies) or 1 (channel mask)`);
}

EU868.defaultCfList = (encodeCfListFrequencies(EU868_EXTRA_CHANNELS) as { value: Buffer }).value;

/** The largest MACPayload (`m`) and FRMPayload (`n`) at a data rate of the region. */
export function maxPayloadSize(region: Region, dr: number): Result<MaxPayloadSize> {
  const s = region.maxPayload[dr];
  return s ? ok(s) : refuse(`DR${dr} has no payload size in ${region.name}`);
}

/** Which receive window a downlink answers in, and what it answers. */
export interface DownlinkPlan {
  /** RX1 (uplink-derived frequency and data rate) or RX2 (fixed frequency and data rate). */
  window: "rx1" | "rx2";
  /** A JoinAccept waits JOIN_ACCEPT_DELAY1/2 (5/6 s); a data downlink waits the RxDelay (1 s by default) / +1 s. */
  kind: "join" | "data";
  /** The device's RX1 delay in s (the JoinAccept `RxDelay`, 1..15; 0 means 1); data downlinks only. */
  rxDelay?: number;
  /** The device's RX1DROffset (default 0). */
  rx1DrOffset?: number;
  /** The device's RX2 data rate (default the region's). */
  rx2DataRate?: number;
  /** The device's RX2 frequency in Hz (default the region's). */
  rx2Frequency?: number;
  /** Transmit power in dBm instead of the region's default for the frequency. */
  power?: number;
}

/**
 * The txpk that answers an uplink in a class A receive window: frequency and data rate by the region's RX1 rules
 * (or RX2 settings), `tmst` = the uplink's tmst + the window's delay in µs (wrapping at 2^32, as the gateway's
 * counter does), the region's power, coding rate 4/5 and inverted polarity. Refused when the uplink is not on a
 * channel and data rate of the region, or the PHYPayload is longer than the window's data rate allows.
 */
export function planDownlink(
  region: Region,
  uplink: RxPacket,
  phyPayload: Buffer,
  plan: DownlinkPlan,
): Result<TxPacket> {
  let delay: number;
  if (plan.kind === "join") delay = plan.window === "rx1" ? region.joinAcceptDelay1 : region.joinAcceptDelay2;
  else {
    const rxDelay = plan.rxDelay ?? region.receiveDelay1;
    if (!Number.isInteger(rxDelay) || rxDelay < 0 || rxDelay > 15) return refuse(`rxDelay ${rxDelay} must be 0..15 s`);
    delay = Math.max(rxDelay, 1) + (plan.window === "rx1" ? 0 : 1);
  }
  let dr: number;
  let hz: number;
  if (plan.window === "rx1") {
    const upDr = uplinkDataRate(region, uplink);
    if (!upDr.ok) return upDr;
    const rx1Dr = region.rx1DataRate(upDr.value, plan.rx1DrOffset ?? 0);
    if (!rx1Dr.ok) return rx1Dr;
    const rx1Hz = region.rx1Frequency(mhzToHz(uplink.freq));
    if (!rx1Hz.ok) return rx1Hz;
    [dr, hz] = [rx1Dr.value, rx1Hz.value];
  } else {
    [dr, hz] = [plan.rx2DataRate ?? region.rx2.dataRate, plan.rx2Frequency ?? region.rx2.frequency];
  }
  const rate = region.downlinkDataRates[dr];
  if (rate === undefined) return refuse(`DR${dr} is not a downlink data rate of ${region.name}`);
  const max = region.maxPayload[dr]!;
  if (phyPayload.length > max.m + 5)
    return refuse(`a ${phyPayload.length}-byte frame is over the ${max.m + 5} bytes DR${dr} allows in ${region.name}`);
  const tx: TxPacket = {
    tmst: (uplink.tmst + delay * 1_000_000) % 2 ** 32,
    freq: hzToMhz(hz),
    rfch: 0,
    powe: plan.power ?? region.downlinkPower(hz),
    modu: rate.modu,
    datr: rate.modu === "FSK" ? rate.bitRate : `SF${rate.sf}BW${rate.bwKHz}`,
    data: phyPayload,
  };
  if (rate.modu === "LORA") Object.assign(tx, { codr: region.codingRate, ipol: true });
  else tx.fdev = rate.bitRate / 2;
  return ok(tx);
}
