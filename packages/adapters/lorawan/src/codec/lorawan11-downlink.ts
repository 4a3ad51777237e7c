// Building a LoRaWAN 1.1 data downlink. 1.1 counts downlinks twice: AFCntDown for frames to an application port
// (FPort > 0) and NFCntDown for MAC-only frames (FPort 0 or none), so the application server and the network
// server each own one counter. The frame's FOpts are encrypted under the NwkSEncKey with the keystream of the
// counter used, FPort 0 payloads under the NwkSEncKey, application payloads under the AppSKey, and the MIC is the
// SNwkSIntKey's with the acknowledged uplink's ConfFCnt.
import { frmPayloadCipher } from "./frame-crypto.js";
import { parseHex, reversed } from "./hex.js";
import type { SessionKeys11 } from "./lorawan11-keys.js";
import { downlinkMic11, foptsCipher11 } from "./lorawan11-mic.js";
import { ok, refuse, type Result } from "./result.js";

/** A 1.1 downlink to build; counters are the next ones to use. */
export interface Downlink11 {
  devAddr: string;
  confirmed: boolean;
  /** Acknowledges the device's last confirmed uplink, whose FCntUp is `confFCnt`. */
  ack: boolean;
  confFCnt: number;
  fPending: boolean;
  /** Plain MAC commands for FOpts (at most 15 bytes). */
  fOpts: Buffer;
  /** null: no FRMPayload; 0: `payload` holds MAC commands; 1..223: application payload. */
  fPort: number | null;
  payload: Buffer;
  aFCntDown: number;
  nFCntDown: number;
}

/** The frame and the counter it consumed: the caller increments that one only. */
export interface BuiltDownlink11 {
  phy: Buffer;
  counter: "aFCntDown" | "nFCntDown";
  fcnt: number;
}

/** Builds the PHYPayload of a 1.1 data downlink, or says why it cannot. */
export function buildDownlink11(d: Downlink11, keys: SessionKeys11): Result<BuiltDownlink11> {
  const addr = parseHex(d.devAddr, 4, "devAddr");
  if (!addr.ok) return addr;
  if (d.fOpts.length > 15) return refuse("FOpts holds at most 15 bytes");
  if (d.fPort !== null && (!Number.isInteger(d.fPort) || d.fPort < 0 || d.fPort > 255))
    return refuse("fPort must be 0..255");
  if (d.fPort === 0 && d.fOpts.length > 0) return refuse("FPort 0 with FOpts: MAC commands in both places");
  if (d.fPort === null && d.payload.length > 0) return refuse("a payload needs an FPort");
  const app = d.fPort !== null && d.fPort > 0;
  const fcnt = (app ? d.aFCntDown : d.nFCntDown) >>> 0;
  const devAddrLe = reversed(addr.value);
  const head = Buffer.alloc(8);
  head[0] = (d.confirmed ? 5 : 3) << 5;
  devAddrLe.copy(head, 1);
  head[5] = (d.ack ? 0x20 : 0) | (d.fPending ? 0x10 : 0) | d.fOpts.length;
  head.writeUInt16LE(fcnt & 0xffff, 6);
  const parts = [head, foptsCipher11(keys.nwkSEncKey, d.fOpts, true, app, devAddrLe, fcnt)];
  if (d.fPort !== null) {
    const key = app ? keys.appSKey : keys.nwkSEncKey;
    parts.push(Buffer.from([d.fPort]), frmPayloadCipher(key, d.payload, true, devAddrLe, fcnt));
  }
  const body = Buffer.concat(parts);
  const mic = downlinkMic11(keys.sNwkSIntKey, body, fcnt, d.confFCnt);
  return ok({ phy: Buffer.concat([body, mic]), counter: app ? "aFCntDown" : "nFCntDown", fcnt });
}
