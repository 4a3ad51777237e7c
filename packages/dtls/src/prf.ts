import { unpooled } from "./bytes.js";
import { createHash, createHmac } from "node:crypto";
import { uint } from "./bytes.js";

/** TLS 1.2's PRF with SHA-256 (RFC 5246 §5): P_SHA256(secret, label + seed) cut to `length` bytes. */
export function prf(secret: Buffer, label: string, seed: Buffer, length: number): Buffer {
  const labelSeed = Buffer.concat([Buffer.from(label, "ascii"), seed]);
  const out: Buffer[] = [];
  let a = labelSeed;
  let have = 0;
  while (have < length) {
    a = createHmac("sha256", secret).update(a).digest();
    const block = createHmac("sha256", secret).update(a).update(labelSeed).digest();
    out.push(block);
    have += block.length;
  }
  return Buffer.concat(out).subarray(0, length);
}

/** The plain PSK premaster secret (RFC 4279 §2): N zero bytes beside the N-byte key, each with its length. */
export function pskPremasterSecret(psk: Buffer): Buffer {
  return Buffer.concat([uint(psk.length, 2), Buffer.alloc(psk.length), uint(psk.length, 2), psk]);
}

/** The master secret: from the randoms (RFC 5246 §8.1), or from the session hash (RFC 7627 §4) when both agreed. */
export function masterSecret(
  premaster: Buffer,
  params: { extended: true; sessionHash: Buffer } | { extended: false; clientRandom: Buffer; serverRandom: Buffer },
): Buffer {
  return params.extended
    ? prf(premaster, "extended master secret", params.sessionHash, 48)
    : prf(premaster, "master secret", Buffer.concat([params.clientRandom, params.serverRandom]), 48);
}

/** The keys of one direction of a connection state (RFC 5246 §6.3). */
export interface DirectionKeys {
  macKey: Buffer;
  encKey: Buffer;
  fixedIv: Buffer;
}

/** Sizes a suite draws from the key block, in the order RFC 5246 §6.3 lists them. */
export interface KeySizes {
  macKey: number;
  encKey: number;
  fixedIv: number;
}

/** The key block split into the client's and the server's write keys. */
export function keyBlock(
  master: Buffer,
  clientRandom: Buffer,
  serverRandom: Buffer,
  sizes: KeySizes,
): { client: DirectionKeys; server: DirectionKeys } {
  const total = 2 * (sizes.macKey + sizes.encKey + sizes.fixedIv);
  // The keys live as long as the session: in memory of their own, not a view of a pool slab.
  const block = unpooled(prf(master, "key expansion", Buffer.concat([serverRandom, clientRandom]), total));
  let at = 0;
  const take = (n: number) => block.subarray(at, (at += n));
  const clientMac = take(sizes.macKey);
  const serverMac = take(sizes.macKey);
  const clientKey = take(sizes.encKey);
  const serverKey = take(sizes.encKey);
  const clientIv = take(sizes.fixedIv);
  const serverIv = take(sizes.fixedIv);
  return {
    client: { macKey: clientMac, encKey: clientKey, fixedIv: clientIv },
    server: { macKey: serverMac, encKey: serverKey, fixedIv: serverIv },
  };
}

/** SHA-256 of the handshake messages so far, as Finished and the extended master secret need. */
export function transcriptHash(messages: Buffer[]): Buffer {
  const h = createHash("sha256");
  for (const m of messages) h.update(m);
  return h.digest();
}

/** Finished's verify_data (RFC 5246 §7.4.9). */
export function verifyData(master: Buffer, sender: "client" | "server", handshakeHash: Buffer): Buffer {
  return prf(master, `${sender} finished`, handshakeHash, 12);
}
