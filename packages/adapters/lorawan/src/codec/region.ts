// Regional parameters for LoRaWAN 1.0.x class A (RP002-1.0.x): the region tables live in regions/ (one file per
// kind of channel plan); this module names them, reads data rates off received packets and plans the txpk of a
// receive window. Frequencies are whole Hz; the Semtech protocol's MHz only at the edge.
import { ok, refuse, type Result } from "./result.js";
import { hzToMhz, mhzToHz, parseLoraDatr, type RxPacket, type TxPacket } from "./radio-packet.js";
import type { DataRate, MaxPayloadSize, Region, RegionName } from "./regions/region-types.js";
import { AS923, AS923_DWELL, EU868, IN865, KR920, RU864 } from "./regions/dynamic-plans.js";
import { AU915, CN470, US915 } from "./regions/fixed-plans.js";

export type { DataRate, MaxPayloadSize, Region, RegionName } from "./regions/region-types.js";
export * from "./regions/cf-list.js";

/** The EU868 CFList most networks send: 867.1, 867.3, 867.5, 867.7 and 867.9 MHz. */
export const EU868_EXTRA_CHANNELS: readonly number[] = EU868.gatewayChannels.slice(3);

/** The supported regions by name. */
export const REGIONS: Readonly<Record<RegionName, Region>> = {
  EU868,
  US915,
  CN470,
  AU915,
  ...AS923,
  KR920,
  IN865,
  RU864,
};

/** A region with the 400 ms dwell time applied where the region has one (AS923), else the region itself. */
export function withDwellTime(region: Region): Region {
  return (AS923_DWELL as Partial<Record<RegionName, Region>>)[region.name] ?? region;
}

const ALIASES: Readonly<Record<string, RegionName>> = {
  ...Object.fromEntries(Object.keys({ EU868, US915, CN470, AU915, ...AS923, KR920, IN865, RU864 }).map((n) => [n, n])),
  "EU863-870": "EU868",
  EU863870: "EU868",
  "US902-928": "US915",
  US902928: "US915",
  "CN470-510": "CN470",
  CN470510: "CN470",
  "AU915-928": "AU915",
  AS923: "AS923-1",
  "AS923-920-923": "AS923-2",
  "KR920-923": "KR920",
  "IN865-867": "IN865",
  "RU864-870": "RU864",
};

/** The names {@link regionByName} accepts as region settings (RP002 common names and AS923 for AS923-1). */
export const REGION_NAMES: readonly string[] = [...Object.keys(REGIONS), "AS923"];

/** The region a device's `lora.region` names (any case, `_` or `-` forms like EU863-870; AS923 is AS923-1). */
export function regionByName(name: unknown): Result<Region> {
  if (typeof name !== "string") return refuse("region must be a name like EU868");
  const key = ALIASES[name.trim().toUpperCase().replace(/_/g, "-")];
  if (key === undefined)
    return refuse(`region "${name}" is not supported: use one of ${Object.keys(REGIONS).join(", ")}`);
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

/** The modulation and `datr` of a DR index (`SF12BW125` for LoRa, the bit rate for FSK), uplink or downlink table. */
export function datrOf(
  region: Region,
  dr: number,
  uplink: boolean,
): Result<{ modu: "LORA" | "FSK"; datr: string | number }> {
  const rate = (uplink ? region.uplinkDataRates : region.downlinkDataRates)[dr];
  if (rate === undefined)
    return refuse(`DR${dr} is not ${uplink ? "an uplink" : "a downlink"} data rate of ${region.name}`);
  return ok(
    rate.modu === "FSK" ? { modu: "FSK", datr: rate.bitRate } : { modu: "LORA", datr: `SF${rate.sf}BW${rate.bwKHz}` },
  );
}

/** The `datr` of a downlink DR index: `SF12BW125` for LoRa, the bit rate for FSK. */
export function downlinkDatr(region: Region, dr: number): Result<string | number> {
  const r = datrOf(region, dr, false);
  return r.ok ? ok(r.value.datr) : r;
}

/** The downlink DR index of a txpk's `datr` (the inverse of {@link downlinkDatr}). */
export function downlinkDataRate(region: Region, tx: Pick<TxPacket, "modu" | "datr">): Result<number> {
  for (const [dr, rate] of Object.entries(region.downlinkDataRates))
    if (sameRate(rate, tx.modu, tx.datr)) return ok(Number(dr));
  return refuse(`${tx.modu} ${String(tx.datr)} is not a downlink data rate of ${region.name}`);
}

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
