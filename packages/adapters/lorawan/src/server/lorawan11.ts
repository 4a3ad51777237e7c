// The network server's LoRaWAN 1.1 session handling beside the 1.0.x one: a 1.1 session's keys and downlink
// counters, its uplinks checked with the 1.1 MIC (the TxDr and TxCh the device sent at, the ConfFCnt of the
// downlink it acknowledges), its downlinks built with the 1.1 MIC and FOpts encryption on the counter the frame
// uses, and the reception time that DeviceTimeAns reports (for 1.0.3+ devices as well).
import type { LoraSession11Info } from "@iot/adapter-core";
import { gpsMsFromUnixMs } from "../codec/class-b.js";
import { toHex } from "../codec/hex.js";
import { buildDownlink11 } from "../codec/lorawan11-downlink.js";
import type { SessionKeys11 } from "../codec/lorawan11-keys.js";
import { uplinkChannelIndex, verifyUplink11 } from "../codec/lorawan11-verify.js";
import { parseLoraDatr } from "../codec/radio-packet.js";
import { uplinkDataRate } from "../codec/region.js";
import { refuse, type Result } from "../codec/result.js";
import type { UplinkVerdict } from "../codec/uplink.js";
import type { DeviceState, NetworkSession } from "./device-state.js";
import type { Heard } from "./server-context.js";

/** What a 1.1 session holds beyond a 1.0.x one. */
export interface Session11 {
  keys: SessionKeys11;
  /** Next NFCntDown (MAC-only downlinks: no FPort or FPort 0) and AFCntDown (application downlinks). */
  nFCntDown: number;
  aFCntDown: number;
  joinNonce: number;
}

/** A 1.1 session from the registry's record (hex keys). */
export function session11FromInfo(i: LoraSession11Info): Session11 {
  const key = (k: string) => Buffer.from(k, "hex");
  return {
    keys: {
      fNwkSIntKey: key(i.fNwkSIntKey),
      sNwkSIntKey: key(i.sNwkSIntKey),
      nwkSEncKey: key(i.nwkSEncKey),
      appSKey: Buffer.alloc(0),
    },
    nFCntDown: i.nFCntDown,
    aFCntDown: i.aFCntDown,
    joinNonce: i.joinNonce,
  };
}

/** The registry's form of a 1.1 session's keys and JoinNonce. */
export function session11Info(s: Session11): LoraSession11Info {
  return {
    fNwkSIntKey: toHex(s.keys.fNwkSIntKey),
    sNwkSIntKey: toHex(s.keys.sNwkSIntKey),
    nwkSEncKey: toHex(s.keys.nwkSEncKey),
    nFCntDown: s.nFCntDown,
    aFCntDown: s.aFCntDown,
    joinNonce: s.joinNonce,
  };
}

/**
 * Checks a 1.1 device's uplink: TxDr from the best copy's data rate, TxCh from its frequency in the region's
 * channel plan, ConfFCnt the FCnt of the last confirmed downlink sent to it.
 */
export function verifyUplinkOf11(
  state: DeviceState,
  session: NetworkSession,
  v11: Session11,
  heard: Heard,
): Result<UplinkVerdict<NetworkSession>> {
  const rx = heard.best.rx;
  const txDr = uplinkDataRate(state.region, rx);
  if (!txDr.ok) return txDr;
  const datr = typeof rx.datr === "string" ? parseLoraDatr(rx.datr) : undefined;
  const txCh = uplinkChannelIndex(state.region, rx.freq, datr?.ok ? datr.value.bwKHz : 125);
  if (!txCh.ok) return refuse(`TxCh: ${txCh.reason}`);
  const keys = { ...v11.keys, appSKey: session.appSKey };
  return verifyUplink11(heard.phyPayload, session, keys, {
    txDr: txDr.value,
    txCh: txCh.value,
    confFCnt: state.confirmedDownFCnt,
  });
}

/** What the next downlink carries, whatever the version. */
export interface NextDownlink {
  ack: boolean;
  confirmed: boolean;
  fPending: boolean;
  fOpts: Buffer;
  fPort?: number;
  payload?: Buffer;
}

/**
 * Builds a 1.1 session's next downlink and advances the counter it used (AFCntDown with an application payload,
 * NFCntDown otherwise); the session's `fcntDown` follows the higher of the two.
 */
export function buildDownlinkOf11(
  state: DeviceState,
  session: NetworkSession,
  v11: Session11,
  d: NextDownlink,
): Result<Buffer> {
  const built = buildDownlink11(
    {
      devAddr: session.devAddr,
      confirmed: d.confirmed,
      ack: d.ack,
      confFCnt: state.lastUplinkFCnt,
      fPending: d.fPending,
      fOpts: d.fOpts,
      fPort: d.fPort ?? null,
      payload: d.payload ?? Buffer.alloc(0),
      aFCntDown: v11.aFCntDown,
      nFCntDown: v11.nFCntDown,
    },
    { ...v11.keys, appSKey: session.appSKey },
  );
  if (!built.ok) return built;
  v11[built.value.counter] = built.value.fcnt + 1;
  session.fcntDown = Math.max(v11.aFCntDown, v11.nFCntDown);
  if (d.confirmed) state.confirmedDownFCnt = built.value.fcnt;
  return { ok: true, value: built.value.phy };
}

/**
 * The GPS time (ms) at which the best gateway received the uplink, for DeviceTimeAns: the gateway's GPS time
 * (`tmms`, or a Basics Station's `gpstime`) when it has one, its UTC `time` when it gives one, else the time the
 * server first heard the frame.
 */
export function receptionGpsMs(heard: Heard): number {
  const { rx, station } = heard.best;
  if (rx.tmms !== undefined && rx.tmms > 0) return rx.tmms;
  if (station && station.gpstime > 0n) return Number(station.gpstime / 1000n);
  const utc = rx.time === undefined ? NaN : Date.parse(rx.time);
  return gpsMsFromUnixMs(Number.isFinite(utc) ? utc : heard.firstHeardAt);
}
