import { decodeWith, type Reader, uint, vector } from "./bytes.js";
import { ok, refuse, type Result } from "./result.js";

/** secp256r1 in supported_groups / named_curve (RFC 8422 §5.1.1), the one curve this server uses. */
export const SECP256R1 = 23;
/** ECCurveType named_curve (RFC 8422 §5.4). */
const NAMED_CURVE = 3;
/** ecdsa_secp256r1_sha256 as a TLS 1.2 SignatureAndHashAlgorithm: hash sha256 (4), signature ecdsa (3). */
export const ECDSA_SHA256 = 0x0403;
/** rsa_pkcs1_sha256: hash sha256 (4), signature rsa (1); what an RSA server signs its ServerKeyExchange with. */
export const RSA_SHA256 = 0x0401;
/** ClientCertificateType ecdsa_sign (RFC 8422 §5.5). */
const ECDSA_SIGN = 64;
/** An uncompressed P-256 point: 0x04, X, Y. */
const P256_POINT = 65;
/** At most this many certificates in a chain, and bytes in one; a device chain is two or three of a few hundred. */
const MAX_CHAIN = 8;
const MAX_CERTIFICATE = 4096;
/** A DER ECDSA P-256 signature is at most 72 bytes, an RSA one as long as the modulus: up to 4096 bits here. */
const MAX_SIGNATURE = 512;

/** A list of 2-byte values (supported_groups, signature_algorithms) with a 2-byte length. */
export function encodeU16List(values: number[]): Buffer {
  return vector(2, Buffer.concat(values.map((v) => uint(v, 2))));
}

export function decodeU16List(data: Buffer): Result<number[]> {
  return decodeWith("u16 list", data, (r) => {
    const list = r.vector(2, 2, 0xfffe);
    if (list.length % 2 !== 0 || r.remaining !== 0) return refuse("u16 list: odd length or trailing bytes");
    const out: number[] = [];
    for (let i = 0; i < list.length; i += 2) out.push(list.readUInt16BE(i));
    return ok(out);
  });
}

/** ec_point_formats (RFC 8422 §5.1.2): 1-byte length, 1-byte formats; 0 is uncompressed. */
export function encodePointFormats(formats: number[]): Buffer {
  return vector(1, Buffer.from(formats));
}

export function decodePointFormats(data: Buffer): Result<number[]> {
  return decodeWith("ec_point_formats", data, (r) => {
    const list = r.vector(1, 1, 255);
    return r.remaining === 0 ? ok([...list]) : refuse("ec_point_formats: trailing bytes");
  });
}

/** Certificate (RFC 5246 §7.4.2): DER certificates, the sender's own first. */
export function encodeCertificate(chain: Buffer[]): Buffer {
  return vector(3, Buffer.concat(chain.map((c) => vector(3, c))));
}

export function decodeCertificate(body: Buffer): Result<Buffer[]> {
  return decodeWith("Certificate", body, (r) => {
    const list = r.vector(3, 0, MAX_CHAIN * (MAX_CERTIFICATE + 3));
    if (r.remaining !== 0) return refuse("Certificate: trailing bytes");
    const chain: Buffer[] = [];
    return decodeWith("Certificate", list, (inner) => {
      while (inner.remaining > 0) {
        if (chain.length === MAX_CHAIN) return refuse(`Certificate: more than ${MAX_CHAIN} certificates`);
        chain.push(Buffer.from(inner.vector(3, 1, MAX_CERTIFICATE)));
      }
      return ok(chain);
    });
  });
}

/** A digitally-signed struct of TLS 1.2 (RFC 5246 §4.7): algorithm and DER signature. */
export interface Signed {
  algorithm: number;
  signature: Buffer;
}

function readSigned(r: Reader): Signed {
  const algorithm = r.u16();
  const signature = Buffer.from(r.vector(2, 1, MAX_SIGNATURE));
  return { algorithm, signature };
}

function writeSigned(s: Signed): Buffer {
  return Buffer.concat([uint(s.algorithm, 2), vector(2, s.signature)]);
}

/** ServerECDHParams (RFC 8422 §5.4): named_curve secp256r1 and the server's point; what the signature covers. */
export function encodeEcdhParams(point: Buffer): Buffer {
  return Buffer.concat([uint(NAMED_CURVE, 1), uint(SECP256R1, 2), vector(1, point)]);
}

/** ServerKeyExchange for ECDHE_ECDSA: the params, then their signature. */
export function encodeEcdheServerKeyExchange(point: Buffer, signed: Signed): Buffer {
  return Buffer.concat([encodeEcdhParams(point), writeSigned(signed)]);
}

export function decodeEcdheServerKeyExchange(body: Buffer): Result<{ point: Buffer } & Signed> {
  return decodeWith("ServerKeyExchange", body, (r) => {
    if (r.u8() !== NAMED_CURVE || r.u16() !== SECP256R1) return refuse("ServerKeyExchange: not secp256r1");
    const point = Buffer.from(r.vector(1, 1, 255));
    const signed = readSigned(r);
    return r.remaining === 0 ? ok({ point, ...signed }) : refuse("ServerKeyExchange: trailing bytes");
  });
}

/** CertificateRequest (RFC 5246 §7.4.4): ecdsa_sign, ecdsa_secp256r1_sha256, no named authorities. */
export function encodeCertificateRequest(): Buffer {
  return Buffer.concat([vector(1, Buffer.from([ECDSA_SIGN])), encodeU16List([ECDSA_SHA256]), uint(0, 2)]);
}

export function decodeCertificateRequest(body: Buffer): Result<{ types: number[]; algorithms: number[] }> {
  return decodeWith("CertificateRequest", body, (r) => {
    const types = [...r.vector(1, 1, 255)];
    const list = r.vector(2, 2, 0xfffe);
    r.vector(2, 0, 0xffff);
    if (list.length % 2 !== 0 || r.remaining !== 0) return refuse("CertificateRequest: odd length or trailing bytes");
    const algorithms: number[] = [];
    for (let i = 0; i < list.length; i += 2) algorithms.push(list.readUInt16BE(i));
    return ok({ types, algorithms });
  });
}

/** CertificateVerify (RFC 5246 §7.4.8): the client's signature over the handshake so far. */
export function encodeCertificateVerify(signed: Signed): Buffer {
  return writeSigned(signed);
}

export function decodeCertificateVerify(body: Buffer): Result<Signed> {
  return decodeWith("CertificateVerify", body, (r) => {
    const signed = readSigned(r);
    return r.remaining === 0 ? ok(signed) : refuse("CertificateVerify: trailing bytes");
  });
}

/** ClientKeyExchange for ECDHE (RFC 8422 §5.7): the client's point, uncompressed. */
export function encodeEcdhClientKeyExchange(point: Buffer): Buffer {
  return vector(1, point);
}

export function decodeEcdhClientKeyExchange(body: Buffer): Result<Buffer> {
  return decodeWith("ClientKeyExchange", body, (r) => {
    const point = r.vector(1, 1, 255);
    if (r.remaining !== 0) return refuse("ClientKeyExchange: trailing bytes");
    return point.length === P256_POINT && point[0] === 4
      ? ok(Buffer.from(point))
      : refuse("ClientKeyExchange: not an uncompressed P-256 point");
  });
}
