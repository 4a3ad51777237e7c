// The LoRaWAN 1.1 Rejoin-Request (1.1 §6.2.4.2): MType 6, sent by a joined device to get new session keys without
// losing its network. Type 0 (a full reset: new DevAddr, keys and radio settings) and type 2 (new keys only) carry
// the NetID and DevEUI with the session's RJcount0 and a MIC under the SNwkSIntKey; type 1 (to restore a lost
// session, like a JoinRequest) carries the JoinEUI and DevEUI with the lifetime RJcount1 and a MIC under the
// JSIntKey. Each is answered by a JoinAccept whose JoinReqType is the rejoin type, DevNonce the RJcount, and which
// is encrypted under the JSEncKey.
import { aesCmac } from "./frame-crypto.js";
import { parseHex, reversed, toHex } from "./hex.js";
import { ok, refuse, type Result } from "./result.js";

/** MHDR of a Rejoin-Request: MType 6, Major 0. */
const MHDR_REJOIN_REQUEST = 0xc0;

/** A Rejoin-Request's fields; EUIs and NetID most significant byte first, as hex. */
export type RejoinRequest =
  | { type: 0 | 2; netId: string; devEui: string; rjCount: number }
  | { type: 1; joinEui: string; devEui: string; rjCount: number };

/** Reads a Rejoin-Request (19 bytes for types 0 and 2, 24 for type 1); its MIC is checked by the caller. */
export function parseRejoinRequest(phy: Uint8Array): Result<RejoinRequest & { mic: Buffer }> {
  const b = Buffer.from(phy);
  if (b[0] !== MHDR_REJOIN_REQUEST) return refuse("not a Rejoin-Request");
  const type = b[1];
  if (type === 0 || type === 2) {
    if (b.length !== 19) return refuse(`a type ${type} Rejoin-Request is 19 bytes, got ${b.length}`);
    const netId = toHex(reversed(b.subarray(2, 5)));
    return ok({
      type,
      netId,
      devEui: toHex(reversed(b.subarray(5, 13))),
      rjCount: b.readUInt16LE(13),
      mic: b.subarray(15),
    });
  }
  if (type === 1) {
    if (b.length !== 24) return refuse(`a type 1 Rejoin-Request is 24 bytes, got ${b.length}`);
    const joinEui = toHex(reversed(b.subarray(2, 10)));
    return ok({
      type,
      joinEui,
      devEui: toHex(reversed(b.subarray(10, 18))),
      rjCount: b.readUInt16LE(18),
      mic: b.subarray(20),
    });
  }
  return refuse(`RejoinType ${String(type)} is not 0, 1 or 2`);
}

/**
 * Whether a Rejoin-Request's MIC is aes128_cmac(`key`, MHDR | fields)[0..3]: the SNwkSIntKey for types 0 and 2,
 * the JSIntKey for type 1.
 */
export function rejoinMicMatches(phy: Uint8Array, key: Buffer): boolean {
  const b = Buffer.from(phy);
  return aesCmac(key, b.subarray(0, -4)).subarray(0, 4).equals(b.subarray(-4));
}

/** A Rejoin-Request as a device builds it (for simulated devices and tests). */
export function buildRejoinRequest(r: RejoinRequest, key: Buffer): Result<Buffer> {
  const devEui = parseHex(r.devEui, 8, "devEui");
  if (!devEui.ok) return devEui;
  if (!Number.isInteger(r.rjCount) || r.rjCount < 0 || r.rjCount > 0xffff) return refuse("rjCount must be 0..65535");
  const first = r.type === 1 ? parseHex(r.joinEui, 8, "joinEui") : parseHex(r.netId, 3, "netId");
  if (!first.ok) return first;
  const count = Buffer.alloc(2);
  count.writeUInt16LE(r.rjCount, 0);
  const body = Buffer.concat([
    Buffer.from([MHDR_REJOIN_REQUEST, r.type]),
    reversed(first.value),
    reversed(devEui.value),
    count,
  ]);
  return ok(Buffer.concat([body, aesCmac(key, body).subarray(0, 4)]));
}
