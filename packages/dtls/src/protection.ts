import {
  type CipherCCM,
  type CipherGCM,
  createCipheriv,
  createDecipheriv,
  createHmac,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";
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

/** Writes seq_num of RFC 5246 §6.2.3.1 as DTLS defines it (RFC 6347 §4.1.2.1): epoch and sequence number, 8 bytes. */
function writeSeqNum(out: Buffer, offset: number, epoch: number, seq: number): void {
  out.writeUInt16BE(epoch, offset);
  out.writeUIntBE(seq, offset + 2, 6);
}

/** tls12_cid's content type (RFC 9146 §3), the outer type of a record that carries a connection ID. */
const TLS12_CID = 25;

/**
 * The additional data of an AEAD record, and the input of a CBC record's MAC before the fragment (RFC 5246 §6.2.3).
 * With a connection ID it is RFC 9146 §5's: seq_num_placeholder, tls12_cid, cid_length, tls12_cid, version, epoch,
 * sequence number, cid, and the length of the DTLSInnerPlaintext. Written into one buffer: a record's protection runs
 * per datagram, and the pieces joined with Buffer.concat cost more than the cipher's own setup.
 */
function additionalData(type: number, epoch: number, seq: number, length: number, cid?: Buffer): Buffer {
  if (!cid) {
    const aad = Buffer.allocUnsafe(13);
    writeSeqNum(aad, 0, epoch, seq);
    aad[8] = type;
    aad.writeUInt16BE(DTLS12, 9);
    aad.writeUInt16BE(length, 11);
    return aad;
  }
  const aad = Buffer.allocUnsafe(23 + cid.length);
  aad.fill(0xff, 0, 8); // seq_num_placeholder
  aad[8] = TLS12_CID;
  aad[9] = cid.length;
  aad[10] = TLS12_CID;
  aad.writeUInt16BE(DTLS12, 11);
  writeSeqNum(aad, 13, epoch, seq);
  cid.copy(aad, 21);
  aad.writeUInt16BE(length, 21 + cid.length);
  return aad;
}

/** The 12-byte nonce of the AEAD suites: the 4-byte implicit part from the key block, then the 8 explicit bytes. */
function aeadNonce(fixedIv: Buffer, explicit: Buffer): Buffer {
  const nonce = Buffer.allocUnsafe(12);
  fixedIv.copy(nonce, 0);
  explicit.copy(nonce, 4, 0, 8);
  return nonce;
}

type Aead = "aes-128-ccm" | "aes-128-gcm";

/** Encrypts `plaintext` into `out` at `offset`, its tag after it; `out` has exactly the room for both. */
function aeadSealInto(
  aead: Aead,
  tagLength: number,
  key: Buffer,
  nonce: Buffer,
  aad: Buffer,
  plaintext: Buffer,
  out: Buffer,
  offset: number,
): void {
  let c: CipherCCM | CipherGCM;
  if (aead === "aes-128-ccm") {
    const ccm = (c = createCipheriv(aead, key, nonce, { authTagLength: tagLength }));
    ccm.setAAD(aad, { plaintextLength: plaintext.length });
  } else {
    const gcm = (c = createCipheriv(aead, key, nonce, { authTagLength: tagLength }));
    gcm.setAAD(aad);
  }
  let at = offset + c.update(plaintext).copy(out, offset);
  at += c.final().copy(out, at); // nothing for these counter modes
  c.getAuthTag().copy(out, at);
}

/**
 * An AEAD record's body (RFC 6655 §3, RFC 5288 §3): the 8 explicit nonce bytes, which are the record's epoch and
 * sequence number, then the ciphertext and its tag, in one buffer.
 */
function aeadRecordBody(
  aead: Aead,
  tagLength: number,
  key: Buffer,
  fixedIv: Buffer,
  epoch: number,
  seq: number,
  aad: Buffer,
  plaintext: Buffer,
): Buffer {
  const out = Buffer.allocUnsafe(8 + plaintext.length + tagLength);
  writeSeqNum(out, 0, epoch, seq);
  aeadSealInto(aead, tagLength, key, aeadNonce(fixedIv, out), aad, plaintext, out, 8);
  return out;
}

/** AES-128-CCM with an 8-byte tag: the primitive of RFC 3610 as node:crypto runs it. */
export function ccm8Seal(key: Buffer, nonce: Buffer, aad: Buffer, plaintext: Buffer): Buffer {
  const out = Buffer.allocUnsafe(plaintext.length + 8);
  aeadSealInto("aes-128-ccm", 8, key, nonce, aad, plaintext, out, 0);
  return out;
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
      const aad = additionalData(type, epoch, seq, plaintext.length, cid);
      return aeadRecordBody("aes-128-ccm", 8, encKey, fixedIv, epoch, seq, aad, plaintext);
    },
    open(type, epoch, seq, body, cid) {
      if (body.length < 16) return refuse("record: too short for CCM_8");
      const sealed = body.subarray(8);
      const aad = additionalData(type, epoch, seq, sealed.length - 8, cid);
      const plain = ccm8Open(encKey, aeadNonce(fixedIv, body), aad, sealed);
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
  const out = Buffer.allocUnsafe(plaintext.length + 16);
  aeadSealInto("aes-128-gcm", 16, key, nonce, aad, plaintext, out, 0);
  return out;
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
      const aad = additionalData(type, epoch, seq, plaintext.length, cid);
      return aeadRecordBody("aes-128-gcm", 16, encKey, fixedIv, epoch, seq, aad, plaintext);
    },
    open(type, epoch, seq, body, cid) {
      if (body.length < 8 + 16) return refuse("record: too short for GCM");
      const sealed = body.subarray(8);
      const aad = additionalData(type, epoch, seq, sealed.length - 16, cid);
      const plain = gcmOpen(encKey, aeadNonce(fixedIv, body), aad, sealed);
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
