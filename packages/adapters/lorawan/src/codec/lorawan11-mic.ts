// The LoRaWAN 1.1 message integrity codes and FOpts cipher (LoRaWAN 1.1 §4.3.1.6, §4.4 and §6.2.3, with the
// 2020 errata on FOpts encryption), on node:crypto like the 1.0.x data-frame crypto in frame-crypto.ts. The tests
// check every function against lora-packet and its published vectors.
import { createCipheriv } from "node:crypto";
import { aesCmac } from "./frame-crypto.js";

/** What the 1.1 uplink MIC's cmacS half covers beside the frame (§4.4). */
export interface UplinkMicContext {
  /** The full 32-bit FCntUp. */
  fcnt: number;
  /** The FCnt of the confirmed downlink this uplink acknowledges; ignored (0) when the ACK bit is clear. */
  confFCnt: number;
  /** The data rate index the uplink was sent at. */
  txDr: number;
  /** The channel index the uplink was sent on. */
  txCh: number;
}

/** The 16-byte B0/B1 header: 0x49, four context bytes, direction, DevAddr, 32-bit FCnt, 0x00, length. */
function micBlock(context: Buffer, down: boolean, phyWithoutMic: Buffer, fcnt: number): Buffer {
  const b = Buffer.alloc(16);
  b[0] = 0x49;
  context.copy(b, 1);
  b[5] = down ? 1 : 0;
  phyWithoutMic.copy(b, 6, 1, 5);
  b.writeUInt32LE(fcnt >>> 0, 10);
  b[15] = phyWithoutMic.length;
  return b;
}

const FCTRL_ACK = 0x20;

/**
 * The 4-byte MIC of a 1.1 data uplink (`phy` without its MIC): cmacS[0..1] | cmacF[0..1], where cmacF =
 * aes128_cmac(FNwkSIntKey, B0 | msg) with a zero context and cmacS = aes128_cmac(SNwkSIntKey, B1 | msg) with
 * ConfFCnt | TxDr | TxCh. A forwarding network server holding only the FNwkSIntKey can check the cmacF half.
 */
export function uplinkMic11(
  fNwkSIntKey: Buffer,
  sNwkSIntKey: Buffer,
  phyWithoutMic: Buffer,
  ctx: UplinkMicContext,
): Buffer {
  const ack = (phyWithoutMic[5]! & FCTRL_ACK) !== 0;
  const b1ctx = Buffer.alloc(4);
  b1ctx.writeUInt16LE(ack ? ctx.confFCnt & 0xffff : 0, 0);
  b1ctx[2] = ctx.txDr & 0xff;
  b1ctx[3] = ctx.txCh & 0xff;
  const cmacF = aesCmac(
    fNwkSIntKey,
    Buffer.concat([micBlock(Buffer.alloc(4), false, phyWithoutMic, ctx.fcnt), phyWithoutMic]),
  );
  const cmacS = aesCmac(sNwkSIntKey, Buffer.concat([micBlock(b1ctx, false, phyWithoutMic, ctx.fcnt), phyWithoutMic]));
  return Buffer.concat([cmacS.subarray(0, 2), cmacF.subarray(0, 2)]);
}

/**
 * The cmacF half alone (the MIC's last two bytes): what the network checks first to find which session of a
 * shared DevAddr sent the frame, before it knows the uplink's TxDr and TxCh are right.
 */
export function uplinkMicF(fNwkSIntKey: Buffer, phyWithoutMic: Buffer, fcnt: number): Buffer {
  const b0 = micBlock(Buffer.alloc(4), false, phyWithoutMic, fcnt);
  return aesCmac(fNwkSIntKey, Buffer.concat([b0, phyWithoutMic])).subarray(0, 2);
}

/**
 * The 4-byte MIC of a 1.1 data downlink: aes128_cmac(SNwkSIntKey, B0 | msg) with ConfFCnt (the FCntUp of the
 * confirmed uplink it acknowledges, 0 when the ACK bit is clear) in B0's first two context bytes. `fcnt` is
 * NFCntDown for port 0 or no port, AFCntDown otherwise.
 */
export function downlinkMic11(sNwkSIntKey: Buffer, phyWithoutMic: Buffer, fcnt: number, confFCnt: number): Buffer {
  const ack = (phyWithoutMic[5]! & FCTRL_ACK) !== 0;
  const context = Buffer.alloc(4);
  context.writeUInt16LE(ack ? confFCnt & 0xffff : 0, 0);
  const b0 = micBlock(context, true, phyWithoutMic, fcnt);
  return aesCmac(sNwkSIntKey, Buffer.concat([b0, phyWithoutMic])).subarray(0, 4);
}

/** JoinReqType of a JoinAccept answering a JoinRequest (Rejoin-Requests use their type, 0..2). */
export const JOIN_REQ_TYPE_JOIN = 0xff;

/**
 * The MIC of a 1.1 JoinAccept with OptNeg set (§6.2.3): aes128_cmac(JSIntKey, JoinReqType | JoinEUI | DevNonce |
 * MHDR | JoinNonce | NetID | DevAddr | DLSettings | RxDelay | CFList), JoinEUI and DevNonce least significant byte
 * first. `plainAcceptWithoutMic` is the MHDR and the plain JoinAccept fields.
 */
export function joinAcceptMic11(
  jsIntKey: Buffer,
  joinReqType: number,
  joinEuiLe: Uint8Array,
  devNonce: number,
  plainAcceptWithoutMic: Buffer,
): Buffer {
  const head = Buffer.alloc(11);
  head[0] = joinReqType & 0xff;
  head.set(joinEuiLe.subarray(0, 8), 1);
  head.writeUInt16LE(devNonce & 0xffff, 9);
  return aesCmac(jsIntKey, Buffer.concat([head, plainAcceptWithoutMic])).subarray(0, 4);
}

/**
 * Encrypts or decrypts (the same XOR) a 1.1 frame's FOpts under the NwkSEncKey (§4.3.1.6 as amended by the
 * FCntDwn-in-FOpts errata): keystream A = 0x01 | 0x00×3 | c | Dir | DevAddr | FCnt | 0x00 | 0x01, where c is 0x02
 * for a downlink counted by AFCntDown (FPort > 0) and 0x01 otherwise (uplinks, and downlinks counted by NFCntDown).
 * `devAddrLe` is the DevAddr as on the air (least significant byte first). FOpts is at most 15 bytes: one block.
 */
export function foptsCipher11(
  nwkSEncKey: Buffer,
  fopts: Buffer,
  down: boolean,
  aFCntDown: boolean,
  devAddrLe: Uint8Array,
  fcnt: number,
): Buffer {
  const a = Buffer.alloc(16);
  a[0] = 0x01;
  a[4] = down && aFCntDown ? 0x02 : 0x01;
  a[5] = down ? 1 : 0;
  a.set(devAddrLe.subarray(0, 4), 6);
  a.writeUInt32LE(fcnt >>> 0, 10);
  a[15] = 0x01;
  const s = createCipheriv("aes-128-ecb", nwkSEncKey, null).setAutoPadding(false).update(a);
  const out = Buffer.alloc(fopts.length);
  for (let i = 0; i < fopts.length; i++) out[i] = fopts[i]! ^ s[i]!;
  return out;
}
