// The LoRaWAN 1.1 JoinAccept (1.1 §6.2.3): the same fields as 1.0.x, with DLSettings' OptNeg bit set to tell the
// device the network speaks 1.1, a MIC under the JSIntKey that also covers JoinReqType, JoinEUI and DevNonce (so
// an accept cannot answer another request), and encryption under the NwkKey (JSEncKey when it answers a
// Rejoin-Request). Built on node:crypto; the tests check it against lora-packet.
import { createCipheriv, createDecipheriv } from "node:crypto";
import { parseHex, reversed, toHex } from "./hex.js";
import type { JoinAcceptFields } from "./join.js";
import { joinAcceptMic11 } from "./lorawan11-mic.js";
import { ok, refuse, type Result } from "./result.js";

/** The request a 1.1 JoinAccept answers: its type (0xFF JoinRequest, 0..2 Rejoin-Request), JoinEUI and DevNonce. */
export interface AcceptContext {
  joinReqType: number;
  joinEui: string;
  devNonce: number;
}

const OPT_NEG = 0x80;
const MHDR_JOIN_ACCEPT = 0x20;

function ecb(key: Buffer, data: Buffer, encrypt: boolean): Buffer {
  const c = encrypt ? createCipheriv("aes-128-ecb", key, null) : createDecipheriv("aes-128-ecb", key, null);
  return Buffer.concat([c.setAutoPadding(false).update(data), c.final()]);
}

/**
 * A 1.1 JoinAccept ready to send: MHDR | JoinNonce | NetID | DevAddr | DLSettings (OptNeg set) | RxDelay | CFList,
 * MIC under `jsIntKey`, all but the MHDR passed through aes128_decrypt(`encKey`) as §6.2.3 prescribes (NwkKey for a
 * JoinRequest, JSEncKey for a Rejoin-Request). `fields.appNonce` is the JoinNonce.
 */
export function buildJoinAccept11(
  fields: JoinAcceptFields,
  ctx: AcceptContext,
  jsIntKey: Buffer,
  encKey: Buffer,
): Result<Buffer> {
  if (jsIntKey.length !== 16 || encKey.length !== 16) return refuse("keys must be 16 bytes");
  const netId = parseHex(fields.netId, 3, "netId");
  if (!netId.ok) return netId;
  const devAddr = parseHex(fields.devAddr, 4, "devAddr");
  if (!devAddr.ok) return devAddr;
  const joinEui = parseHex(ctx.joinEui, 8, "joinEui");
  if (!joinEui.ok) return joinEui;
  if (!Number.isInteger(fields.appNonce) || fields.appNonce < 0 || fields.appNonce > 0xffffff)
    return refuse("joinNonce must be 0..16777215");
  if (fields.cfList !== undefined && fields.cfList.length !== 16) return refuse("cfList must be 16 bytes");
  const head = Buffer.alloc(13);
  head[0] = MHDR_JOIN_ACCEPT;
  head.writeUIntLE(fields.appNonce, 1, 3);
  reversed(netId.value).copy(head, 4);
  reversed(devAddr.value).copy(head, 7);
  head[11] = OPT_NEG | ((fields.rx1DrOffset & 0x07) << 4) | (fields.rx2DataRate & 0x0f);
  head[12] = fields.rxDelay & 0x0f;
  const plain = fields.cfList ? Buffer.concat([head, fields.cfList]) : head;
  const mic = joinAcceptMic11(jsIntKey, ctx.joinReqType, reversed(joinEui.value), ctx.devNonce, plain);
  const body = Buffer.concat([plain.subarray(1), mic]);
  return ok(Buffer.concat([plain.subarray(0, 1), ecb(encKey, body, false)]));
}

/**
 * Decrypts a 1.1 JoinAccept as a device does (aes128_encrypt under `encKey`) and checks OptNeg and the MIC: the
 * fields, or why not. For simulated devices and tests. A JoinRequest's answer has JoinReqType 0xFF.
 */
export function decodeJoinAccept11(
  phy: Uint8Array,
  ctx: AcceptContext,
  jsIntKey: Buffer,
  encKey: Buffer,
): Result<JoinAcceptFields> {
  if (phy.length !== 17 && phy.length !== 33) return refuse(`a JoinAccept is 17 or 33 bytes, got ${phy.length}`);
  if (phy[0] !== MHDR_JOIN_ACCEPT) return refuse("not a JoinAccept");
  const joinEui = parseHex(ctx.joinEui, 8, "joinEui");
  if (!joinEui.ok) return joinEui;
  const plain = Buffer.concat([Buffer.from(phy.subarray(0, 1)), ecb(encKey, Buffer.from(phy.subarray(1)), true)]);
  const dl = plain[11]!;
  if ((dl & OPT_NEG) === 0) return refuse("OptNeg is clear: a LoRaWAN 1.0.x JoinAccept");
  const mic = joinAcceptMic11(jsIntKey, ctx.joinReqType, reversed(joinEui.value), ctx.devNonce, plain.subarray(0, -4));
  if (!mic.equals(plain.subarray(-4))) return refuse("JoinAccept MIC does not match the JSIntKey");
  const fields: JoinAcceptFields = {
    appNonce: plain.readUIntLE(1, 3),
    netId: toHex(reversed(plain.subarray(4, 7))),
    devAddr: toHex(reversed(plain.subarray(7, 11))),
    rx1DrOffset: (dl >> 4) & 0x07,
    rx2DataRate: dl & 0x0f,
    rxDelay: plain[12]! & 0x0f,
  };
  if (phy.length === 33) fields.cfList = Buffer.from(plain.subarray(13, 29));
  return ok(fields);
}
