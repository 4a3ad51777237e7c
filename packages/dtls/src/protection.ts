import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { uint } from "./bytes.js";
import type { DirectionKeys, KeySizes } from "./prf.js";
import { DTLS12 } from "./record.js";
import { ok, refuse, type Result } from "./result.js";

/** Protects and opens the records of one direction under one epoch's keys. */
export interface RecordProtection {
  /** `cid`: the record is a tls12_cid one (RFC 9146) and `plaintext` its DTLSInnerPlaintext. */
  seal(type: number, epoch: number, seq: number, plaintext: Buffer, cid?: Buffer): Buffer;
  /** The plaintext, or a refusal when the record was altered or made under other keys (bad_record_mac). */
  open(type: number, epoch: number, seq: number, body: Buffer, cid?: Buffer): Result<Buffer>;
}

type KeyExchange = "psk" | "ecdhe_ecdsa" | "ecdhe_rsa";

/** A cipher suite this server negotiates: its number, key sizes and record protection. */
export interface CipherSuite {
  id: number;
  name: string;
  /** Pre-shared key (RFC 4279), or ephemeral ECDH signed with the server's ECDSA or RSA certificate (RFC 8422). */
  keyExchange: KeyExchange;
  sizes: KeySizes;
  protection(keys: DirectionKeys): RecordProtection;
}

/** seq_num of RFC 5246 §6.2.3.1 as DTLS defines it (RFC 6347 §4.1.2.1): epoch and sequence number, 8 bytes. */
function seqNum(epoch: number, seq: number): Buffer {
  return Buffer.concat([uint(epoch, 2), uint(seq, 6)]);
}

/** tls12_cid's content type (RFC 9146 §3), the outer type of a record that carries a connection ID. */
const TLS12_CID = 25;
const SEQ_NUM_PLACEHOLDER = Buffer.alloc(8, 0xff);

/**
 * The additional data of an AEAD record, and the input of a CBC record's MAC before the fragment (RFC 5246 §6.2.3).
 * With a connection ID it is RFC 9146 §5's: seq_num_placeholder, tls12_cid, cid_length, tls12_cid, version, epoch,
 * sequence number, cid, and the length of the DTLSInnerPlaintext.
 */
function additionalData(type: number, epoch: number, seq: number, length: number, cid?: Buffer): Buffer {
  if (!cid) return Buffer.concat([seqNum(epoch, seq), uint(type, 1), uint(DTLS12, 2), uint(length, 2)]);
  const head = [SEQ_NUM_PLACEHOLDER, uint(TLS12_CID, 1), uint(cid.length, 1), uint(TLS12_CID, 1)];
  return Buffer.concat([...head, uint(DTLS12, 2), seqNum(epoch, seq), cid, uint(length, 2)]);
}

/** AES-128-CCM with an 8-byte tag: the primitive of RFC 3610 as node:crypto runs it. */
export function ccm8Seal(key: Buffer, nonce: Buffer, aad: Buffer, plaintext: Buffer): Buffer {
  const c = createCipheriv("aes-128-ccm", key, nonce, { authTagLength: 8 });
  c.setAAD(aad, { plaintextLength: plaintext.length });
  const body = Buffer.concat([c.update(plaintext), c.final()]);
  return Buffer.concat([body, c.getAuthTag()]);
}

export function ccm8Open(key: Buffer, nonce: Buffer, aad: Buffer, sealed: Buffer): Buffer | undefined {
  if (sealed.length < 8) return undefined;
  const body = sealed.subarray(0, sealed.length - 8);
  const d = createDecipheriv("aes-128-ccm", key, nonce, { authTagLength: 8 });
  d.setAuthTag(sealed.subarray(sealed.length - 8));
  d.setAAD(aad, { plaintextLength: body.length });
  const plain = d.update(body);
  try {
    d.final();
  } catch {
    return undefined;
  }
  return plain;
}

/**
 * TLS_PSK_WITH_AES_128_CCM_8 (RFC 6655 §3): nonce = 4-byte implicit IV from the key block + 8-byte explicit part,
 * which is the record's epoch and sequence number, sent before the ciphertext.
 */
const ccm8: CipherSuite = {
  id: 0xc0a8,
  name: "TLS_PSK_WITH_AES_128_CCM_8",
  keyExchange: "psk",
  sizes: { macKey: 0, encKey: 16, fixedIv: 4 },
  protection: ({ encKey, fixedIv }) => ({
    seal(type, epoch, seq, plaintext, cid) {
      const explicit = seqNum(epoch, seq);
      const nonce = Buffer.concat([fixedIv, explicit]);
      return Buffer.concat([
        explicit,
        ccm8Seal(encKey, nonce, additionalData(type, epoch, seq, plaintext.length, cid), plaintext),
      ]);
    },
    open(type, epoch, seq, body, cid) {
      if (body.length < 16) return refuse("record: too short for CCM_8");
      const nonce = Buffer.concat([fixedIv, body.subarray(0, 8)]);
      const sealed = body.subarray(8);
      const plain = ccm8Open(encKey, nonce, additionalData(type, epoch, seq, sealed.length - 8, cid), sealed);
      return plain ? ok(plain) : refuse("record: CCM_8 tag does not match");
    },
  }),
};

const BLOCK = 16;
const MAC = 32;

/**
 * TLS_PSK_WITH_AES_128_CBC_SHA256 (RFC 5487): HMAC-SHA256 over the plaintext, then padding, then AES-128-CBC under an
 * explicit random IV (RFC 5246 §6.2.3.2). The padding is checked without branching on its bytes and a bad one still
 * costs a MAC, so timing tells little about which failed.
 */
const cbcSha256: CipherSuite = {
  id: 0x00ae,
  name: "TLS_PSK_WITH_AES_128_CBC_SHA256",
  keyExchange: "psk",
  sizes: { macKey: MAC, encKey: 16, fixedIv: 0 },
  protection: ({ macKey, encKey }) => ({
    seal(type, epoch, seq, plaintext, cid) {
      const mac = createHmac("sha256", macKey)
        .update(additionalData(type, epoch, seq, plaintext.length, cid))
        .update(plaintext)
        .digest();
      const padLength = (BLOCK - ((plaintext.length + MAC + 1) % BLOCK)) % BLOCK;
      const padded = Buffer.concat([plaintext, mac, Buffer.alloc(padLength + 1, padLength)]);
      const iv = randomBytes(BLOCK);
      const c = createCipheriv("aes-128-cbc", encKey, iv).setAutoPadding(false);
      return Buffer.concat([iv, c.update(padded), c.final()]);
    },
    open(type, epoch, seq, body, cid) {
      if (body.length % BLOCK !== 0 || body.length < BLOCK + 3 * BLOCK) return refuse("record: bad CBC length");
      const d = createDecipheriv("aes-128-cbc", encKey, body.subarray(0, BLOCK)).setAutoPadding(false);
      const padded = Buffer.concat([d.update(body.subarray(BLOCK)), d.final()]);
      const padLength = padded[padded.length - 1]!;
      // Every byte of the largest possible padding is looked at; `bad` gathers mismatches of the ones inside it.
      let bad = padLength + 1 + MAC > padded.length ? 1 : 0;
      const span = Math.min(256, padded.length);
      for (let i = 1; i <= span; i++) {
        const inPad = i <= padLength + 1 ? 1 : 0;
        bad |= inPad & (padded[padded.length - i]! ^ padLength ? 1 : 0);
      }
      const cut = bad ? MAC : padLength + 1 + MAC;
      const plaintext = padded.subarray(0, padded.length - cut);
      const mac = padded.subarray(plaintext.length, plaintext.length + MAC);
      const want = createHmac("sha256", macKey)
        .update(additionalData(type, epoch, seq, plaintext.length, cid))
        .update(plaintext)
        .digest();
      const good = timingSafeEqual(mac, want) && !bad;
      return good ? ok(plaintext) : refuse("record: CBC padding or MAC does not match");
    },
  }),
};

/** AES-128-GCM with its 16-byte tag: nonce = 4-byte implicit salt + 8-byte explicit part (RFC 5288 §3). */
export function gcmSeal(key: Buffer, nonce: Buffer, aad: Buffer, plaintext: Buffer): Buffer {
  const c = createCipheriv("aes-128-gcm", key, nonce, { authTagLength: 16 });
  c.setAAD(aad);
  return Buffer.concat([c.update(plaintext), c.final(), c.getAuthTag()]);
}

export function gcmOpen(key: Buffer, nonce: Buffer, aad: Buffer, sealed: Buffer): Buffer | undefined {
  if (sealed.length < 16) return undefined;
  const d = createDecipheriv("aes-128-gcm", key, nonce, { authTagLength: 16 });
  d.setAuthTag(sealed.subarray(sealed.length - 16));
  d.setAAD(aad);
  const plain = d.update(sealed.subarray(0, sealed.length - 16));
  try {
    d.final();
  } catch {
    return undefined;
  }
  return plain;
}

/**
 * TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 (RFC 5289): the explicit nonce is the record's epoch and sequence number,
 * unique per key as RFC 5288 §3 asks, sent before the ciphertext.
 */
const ecdheGcm: CipherSuite = {
  id: 0xc02b,
  name: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
  keyExchange: "ecdhe_ecdsa",
  sizes: { macKey: 0, encKey: 16, fixedIv: 4 },
  protection: ({ encKey, fixedIv }) => ({
    seal(type, epoch, seq, plaintext, cid) {
      const explicit = seqNum(epoch, seq);
      const nonce = Buffer.concat([fixedIv, explicit]);
      const aad = additionalData(type, epoch, seq, plaintext.length, cid);
      return Buffer.concat([explicit, gcmSeal(encKey, nonce, aad, plaintext)]);
    },
    open(type, epoch, seq, body, cid) {
      if (body.length < 8 + 16) return refuse("record: too short for GCM");
      const nonce = Buffer.concat([fixedIv, body.subarray(0, 8)]);
      const sealed = body.subarray(8);
      const plain = gcmOpen(encKey, nonce, additionalData(type, epoch, seq, sealed.length - 16, cid), sealed);
      return plain ? ok(plain) : refuse("record: GCM tag does not match");
    },
  }),
};

/** TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8 (RFC 7251): the PSK suite's record protection under ECDHE keys. */
const ecdheCcm8: CipherSuite = {
  ...ccm8,
  id: 0xc0ae,
  name: "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8",
  keyExchange: "ecdhe_ecdsa",
};

/**
 * TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 (RFC 5289): the ServerKeyExchange is signed with the server's RSA key; the
 * records are protected as with {@link ecdheGcm}.
 */
const ecdheRsaGcm: CipherSuite = {
  ...ecdheGcm,
  id: 0xc02f,
  name: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
  keyExchange: "ecdhe_rsa",
};

/**
 * The suites in this server's order of preference. PSK first: a client offers PSK suites only when it holds a key,
 * while PSK clients (OpenSSL's default list) offer ECDHE_ECDSA suites too without having a certificate. CCM_8 first
 * within each: LwM2M makes it mandatory. The ECDHE_RSA suite is served only by a server whose key is RSA, the
 * ECDHE_ECDSA ones only by one whose key is P-256.
 */
export const CIPHER_SUITES: readonly CipherSuite[] = [ccm8, cbcSha256, ecdheCcm8, ecdheGcm, ecdheRsaGcm];
