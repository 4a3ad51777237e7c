// The shape of a LoRaWAN regional channel plan (RP002-1.0.x) as the network server uses it, and the helpers the
// plan tables are written with. Frequencies are whole Hz.
import { ok, refuse, type Result } from "../result.js";

/** The regions supported, by the names `lora.region` uses (RP002-1.0.x common names). */
export type RegionName =
  "EU868" | "US915" | "CN470" | "AU915" | "AS923-1" | "AS923-2" | "AS923-3" | "AS923-4" | "KR920" | "IN865" | "RU864";

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
  /** Downlink data rates by DR index (US915 and AU915 use DR8..13 downstream). */
  downlinkDataRates: Readonly<Record<number, DataRate>>;
  /** Maximum payload sizes by DR index, repeater-compatible values (every device and repeater accepts them). */
  maxPayload: Readonly<Record<number, MaxPayloadSize>>;
  /** Highest RX1DROffset a JoinAccept or RXParamSetupReq may set. */
  maxRx1DrOffset: number;
  /** The RX1 data-rate table: downlink DR by uplink DR, then by RX1DROffset (RP002's "RX1 DR" table). */
  rx1DrTable: Readonly<Record<number, readonly number[]>>;
  /** RX2 default frequency (Hz) and data rate. */
  rx2: { frequency: number; dataRate: number };
  /** RECEIVE_DELAY1 in s (RX2 opens 1 s later); the JoinAccept RxDelay can change it for data frames. */
  receiveDelay1: number;
  /** JOIN_ACCEPT_DELAY1 and JOIN_ACCEPT_DELAY2 in s. */
  joinAcceptDelay1: number;
  joinAcceptDelay2: number;
  /** The channels every device of the region knows from the start (Hz); empty for the fixed plans. */
  defaultChannels: readonly number[];
  /** The CFList type the region uses: 0 (extra frequencies), 1 (channel mask), or none (CN470 1.0.x). */
  cfListType?: 0 | 1;
  /** The CFList sent in a JoinAccept by default, if the region has one (EU868: 5 extra channels). */
  defaultCfList?: Buffer;
  /**
   * The eight multi-SF uplink channels (Hz) a gateway listens on by default (the default channels and the default
   * CFList's; the second sub-band of US915/AU915), and the single-SF LoRa channel at its DR if the plan has one.
   */
  gatewayChannels: readonly number[];
  gatewayStdChannel?: { frequency: number; dataRate: number };
  /** The band's lowest and highest frequency (Hz): a Basics Station sends nothing outside it (`freq_range`). */
  band: readonly [number, number];
  /** Whether the 400 ms dwell-time limit applies (AS923 with UplinkDwellTime/DownlinkDwellTime 1). */
  dwellTime: boolean;
  /** Coding rate of downlinks. */
  codingRate: string;
  /** The RX1 data rate for an uplink data rate and an RX1DROffset, or why there is none. */
  rx1DataRate(uplinkDr: number, rx1DrOffset: number): Result<number>;
  /** The RX1 frequency (Hz) for an uplink frequency (Hz), or why the uplink frequency is not a channel here. */
  rx1Frequency(uplinkHz: number): Result<number>;
  /** Transmit power (dBm, as the packet forwarder's `powe`) for a downlink frequency, within the regional limit. */
  downlinkPower(hz: number): number;
}

/** A LoRa data rate. */
export const lora = (sf: number, bwKHz: number): DataRate => ({ modu: "LORA", sf, bwKHz });
/** FSK at 50 kbit/s, the only FSK rate of the plans. */
export const FSK50: DataRate = { modu: "FSK", bitRate: 50_000 };
/** A payload size from its MACPayload length (FRMPayload = M − 8 without FOpts). */
const size = (m: number): MaxPayloadSize => ({ m, n: m - 8 });
/** Sizes by DR index from a list of M values (`undefined`: no size, the DR is not usable). */
export function sizes(ms: readonly (number | undefined)[], firstDr = 0): Record<number, MaxPayloadSize> {
  const out: Record<number, MaxPayloadSize> = {};
  ms.forEach((m, i) => {
    if (m !== undefined) out[firstDr + i] = size(m);
  });
  return out;
}

/** The "uplink DR minus offset, not below DR0" table of EU868, KR920, RU864 and CN470, offsets 0..5. */
export function minusOffsetTable(drs: readonly number[]): Record<number, number[]> {
  const out: Record<number, number[]> = {};
  for (const dr of drs) out[dr] = [0, 1, 2, 3, 4, 5].map((o) => Math.max(0, dr - o));
  return out;
}

/** `rx1DataRate` read from the region's {@link Region.rx1DrTable}. */
export function rx1FromTable(this: Region, uplinkDr: number, offset: number): Result<number> {
  const row = this.rx1DrTable[uplinkDr];
  if (!(uplinkDr in this.uplinkDataRates) || !row)
    return refuse(`DR${uplinkDr} is not an uplink data rate of ${this.name}`);
  if (!Number.isInteger(offset) || offset < 0 || offset > this.maxRx1DrOffset)
    return refuse(`RX1DROffset ${offset} must be 0..${this.maxRx1DrOffset} in ${this.name}`);
  const dr = row[offset];
  return dr === undefined ? refuse(`DR${uplinkDr} has no RX1 data rate at offset ${offset} in ${this.name}`) : ok(dr);
}

/** MHz text of a frequency for messages. */
export const mhz = (hz: number): string => String(hz / 1e6);

/** `rx1Frequency` of the plans where RX1 uses the uplink frequency, within the band [lowHz, highHz]. */
export function sameFrequencyIn(name: string, lowHz: number, highHz: number) {
  return (uplinkHz: number): Result<number> =>
    uplinkHz < lowHz || uplinkHz > highHz
      ? refuse(`${mhz(uplinkHz)} MHz is outside the ${name} band (${mhz(lowHz)}–${mhz(highHz)} MHz)`)
      : ok(uplinkHz);
}
