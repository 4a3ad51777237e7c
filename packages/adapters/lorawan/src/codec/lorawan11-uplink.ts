// Opening a LoRaWAN 1.1 data uplink once its full FCntUp is known (the counter rules are those of uplink.ts): the
// MIC under the FNwkSIntKey and SNwkSIntKey with the uplink's ConfFCnt, TxDr and TxCh, MAC commands from FOpts
// decrypted under the NwkSEncKey, and the FRMPayload under the NwkSEncKey (FPort 0) or the AppSKey.
import { frmPayloadCipher } from "./frame-crypto.js";
import { parseHex, reversed } from "./hex.js";
import type { SessionKeys11 } from "./lorawan11-keys.js";
import { foptsCipher11, uplinkMic11, type UplinkMicContext } from "./lorawan11-mic.js";
import { ok, refuse, type Result } from "./result.js";
import type { DataFrame } from "./uplink.js";

/** A 1.1 uplink's plain contents. */
export interface OpenedUplink11 {
  /** The application payload (empty when the frame carries MAC commands or nothing). */
  payload: Buffer;
  /** MAC commands, from FOpts or from an FPort 0 FRMPayload, decrypted. */
  macCommands: Buffer;
}

/**
 * Checks a parsed 1.1 uplink's MIC (`phy` is the whole frame, `ctx.fcnt` its full 32-bit FCntUp) and decrypts its
 * MAC commands and payload; refuses a frame whose MIC does not match, naming the half that failed.
 */
export function openUplink11(
  phy: Uint8Array,
  frame: DataFrame,
  keys: SessionKeys11,
  ctx: UplinkMicContext,
): Result<OpenedUplink11> {
  if (!frame.uplink) return refuse("not an uplink");
  const addr = parseHex(frame.devAddr, 4, "devAddr");
  if (!addr.ok) return addr;
  const bytes = Buffer.from(phy);
  const mic = uplinkMic11(keys.fNwkSIntKey, keys.sNwkSIntKey, bytes.subarray(0, -4), ctx);
  if (!mic.subarray(2).equals(frame.mic.subarray(2))) return refuse("MIC (cmacF) does not match the FNwkSIntKey");
  if (!mic.equals(frame.mic)) return refuse("MIC (cmacS) does not match the SNwkSIntKey, ConfFCnt, TxDr and TxCh");
  const devAddrLe = reversed(addr.value);
  if (frame.fPort === 0)
    return ok({
      payload: Buffer.alloc(0),
      macCommands: frmPayloadCipher(keys.nwkSEncKey, frame.frmPayload, false, devAddrLe, ctx.fcnt),
    });
  return ok({
    payload: frmPayloadCipher(keys.appSKey, frame.frmPayload, false, devAddrLe, ctx.fcnt),
    macCommands: foptsCipher11(keys.nwkSEncKey, frame.fOpts, false, false, devAddrLe, ctx.fcnt),
  });
}
