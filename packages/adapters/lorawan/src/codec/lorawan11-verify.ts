// Checking a LoRaWAN 1.1 data uplink as the network server does: the frame counter found through the cmacF half of
// the MIC (FNwkSIntKey; the same 16-bit-to-32-bit policies as 1.0.x, see uplink.ts), the policy's verdict, then
// the whole MIC with the cmacS half (SNwkSIntKey, ConfFCnt, TxDr, TxCh) and the decryption of FOpts and payload.
import type { SessionKeys11 } from "./lorawan11-keys.js";
import { uplinkMic11, uplinkMicF } from "./lorawan11-mic.js";
import { openUplink11 } from "./lorawan11-uplink.js";
import type { Region } from "./region.js";
import { ok, refuse, type Result } from "./result.js";
import { authenticateFCnt, judge, MAX_FCNT_GAP, MAX_LOST_AFTER_RESET, parseDataFrame } from "./uplink.js";
import type { UplinkSession, UplinkVerdict } from "./uplink.js";

/** What the uplink's cmacS covers beside the frame: how it was sent, and which confirmed downlink it acknowledges. */
export interface UplinkRadio11 {
  /** Data rate index and channel index the device sent at. */
  txDr: number;
  txCh: number;
  /** FCnt of the last confirmed downlink sent to the device (only used when the frame's ACK bit is set). */
  confFCnt: number;
}

/**
 * A 1.1 uplink's verdict for `session` (one session: a 1.1 DevAddr belongs to one device here), or why it was
 * refused (malformed, cmacF or cmacS mismatch). The caller stores `nextFCntUp` of an accepted verdict.
 */
export function verifyUplink11<S extends UplinkSession>(
  phy: Uint8Array,
  session: S,
  keys: SessionKeys11,
  radio: UplinkRadio11,
): Result<UplinkVerdict<S>> {
  const parsed = parseDataFrame(phy);
  if (!parsed.ok) return parsed;
  const frame = parsed.value;
  if (!frame.uplink) return refuse(`MType ${frame.mType} is a downlink, not an uplink`);
  if (frame.devAddr !== session.devAddr) return refuse(`DevAddr ${frame.devAddr} is not the session's`);
  const bytes = Buffer.from(phy.buffer, phy.byteOffset, phy.byteLength);
  const body = bytes.subarray(0, -4);
  const micF = frame.mic.subarray(2);
  const full = authenticateFCnt(session, frame.fCnt16, (c) => uplinkMicF(keys.fNwkSIntKey, body, c).equals(micF));
  if (full === undefined) return refuse(`MIC (cmacF) does not match the session of DevAddr ${frame.devAddr}`);
  const verdict = judge(session, frame, full, { maxFCntGap: MAX_FCNT_GAP, maxLostAfterReset: MAX_LOST_AFTER_RESET });
  if (verdict.kind === "refused") return ok(verdict);
  // A retransmission is ACKed again: its whole MIC is checked first, as an accepted frame's is below.
  if (verdict.kind === "retransmission") {
    const mic = uplinkMic11(keys.fNwkSIntKey, keys.sNwkSIntKey, body, { fcnt: full, ...radio });
    return mic.equals(frame.mic) ? ok(verdict) : refuse("MIC (cmacS) of the retransmission does not match");
  }
  const opened = openUplink11(bytes, frame, keys, { fcnt: full, ...radio });
  if (!opened.ok) return opened;
  return ok({ ...verdict, ...opened.value });
}

/** The 125 kHz and 500 kHz channel grids of the fixed plans (RP002 §2.x.2): first channel and spacing, Hz. */
const FIXED_GRIDS: Partial<Record<Region["name"], { narrow: [number, number, number]; wide?: [number, number] }>> = {
  US915: { narrow: [902_300_000, 200_000, 64], wide: [903_000_000, 1_600_000] },
  AU915: { narrow: [915_200_000, 200_000, 64], wide: [915_900_000, 1_600_000] },
  CN470: { narrow: [470_300_000, 200_000, 96] },
};

/**
 * The index of the uplink channel a frame was sent on (the MIC's TxCh): in the fixed plans its place in the
 * region's channel grid (US915/AU915: 0..63 at 125 kHz, 64..71 at 500 kHz); in the dynamic plans its place in the
 * device's channel list: the default channels, then the JoinAccept's CFList channels (the region's default CFList,
 * which this server sends).
 */
export function uplinkChannelIndex(region: Region, freqMHz: number, bwKHz = 125): Result<number> {
  const hz = Math.round(freqMHz * 1e4) * 100;
  const grid = FIXED_GRIDS[region.name];
  if (grid) {
    const [base, step, count] = bwKHz === 500 && grid.wide ? [...grid.wide, 8] : grid.narrow;
    const i = (hz - base) / step;
    if (Number.isInteger(i) && i >= 0 && i < count) return ok(bwKHz === 500 && grid.wide ? 64 + i : i);
    return refuse(`${freqMHz} MHz is not a ${region.name} uplink channel`);
  }
  const i = region.gatewayChannels.indexOf(hz);
  return i >= 0 ? ok(i) : refuse(`${freqMHz} MHz is not one of the device's ${region.name} channels`);
}
