import { decodeWith, Reader, uint, vector } from "./bytes.js";
import { ok, refuse, type Result } from "./result.js";

/** Extension types this server reads or answers; others are ignored (RFC 5246 §7.4.1.4). */
export const ExtensionType = {
  supportedGroups: 10,
  ecPointFormats: 11,
  signatureAlgorithms: 13,
  encryptThenMac: 22,
  extendedMasterSecret: 23,
  connectionId: 54,
  renegotiationInfo: 0xff01,
} as const;

/** TLS_EMPTY_RENEGOTIATION_INFO_SCSV (RFC 5746 §3.3): a client's signal of secure renegotiation as a suite. */
export const EMPTY_RENEGOTIATION_INFO_SCSV = 0x00ff;

export interface Extension {
  type: number;
  data: Buffer;
}

export interface ClientHello {
  clientVersion: number;
  random: Buffer;
  sessionId: Buffer;
  cookie: Buffer;
  cipherSuites: number[];
  compressionMethods: Buffer;
  extensions: Extension[];
}

export interface ServerHello {
  serverVersion: number;
  random: Buffer;
  sessionId: Buffer;
  cipherSuite: number;
  extensions: Extension[];
}

function readExtensions(r: Reader): Extension[] {
  if (r.remaining === 0) return [];
  const block = r.vector(2, 0, 0xffff);
  const inner = new Reader(block);
  const out: Extension[] = [];
  while (inner.remaining > 0) out.push({ type: inner.u16(), data: inner.vector(2, 0, 0xffff) });
  return out;
}

function writeExtensions(extensions: Extension[]): Buffer {
  if (extensions.length === 0) return Buffer.alloc(0);
  return vector(2, Buffer.concat(extensions.map((e) => Buffer.concat([uint(e.type, 2), vector(2, e.data)]))));
}

/** ClientHello (RFC 6347 §4.2.1: the TLS one with a cookie after the session id). */
export function decodeClientHello(body: Buffer): Result<ClientHello> {
  return decodeWith("ClientHello", body, (r) => {
    const clientVersion = r.u16();
    const random = r.bytes(32);
    const sessionId = r.vector(1, 0, 32);
    const cookie = r.vector(1, 0, 255);
    const suites = r.vector(2, 2, 0xfffe);
    if (suites.length % 2 !== 0) return refuse("ClientHello: odd cipher_suites length");
    const cipherSuites: number[] = [];
    for (let i = 0; i < suites.length; i += 2) cipherSuites.push(suites.readUInt16BE(i));
    const compressionMethods = r.vector(1, 1, 255);
    const extensions = readExtensions(r);
    if (r.remaining !== 0) return refuse("ClientHello: bytes after the extensions");
    return ok({ clientVersion, random, sessionId, cookie, cipherSuites, compressionMethods, extensions });
  });
}

export function encodeClientHello(h: ClientHello): Buffer {
  const suites = Buffer.concat(h.cipherSuites.map((s) => uint(s, 2)));
  return Buffer.concat([
    uint(h.clientVersion, 2),
    h.random,
    vector(1, h.sessionId),
    vector(1, h.cookie),
    vector(2, suites),
    vector(1, h.compressionMethods),
    writeExtensions(h.extensions),
  ]);
}

/** HelloVerifyRequest (RFC 6347 §4.2.1). */
export function encodeHelloVerifyRequest(serverVersion: number, cookie: Buffer): Buffer {
  return Buffer.concat([uint(serverVersion, 2), vector(1, cookie)]);
}

export function decodeHelloVerifyRequest(body: Buffer): Result<{ serverVersion: number; cookie: Buffer }> {
  return decodeWith("HelloVerifyRequest", body, (r) => {
    const serverVersion = r.u16();
    const cookie = r.vector(1, 0, 255);
    return r.remaining === 0 ? ok({ serverVersion, cookie }) : refuse("HelloVerifyRequest: trailing bytes");
  });
}

/** ServerHello with no compression (RFC 5246 §7.4.1.3). */
export function encodeServerHello(h: ServerHello): Buffer {
  return Buffer.concat([
    uint(h.serverVersion, 2),
    h.random,
    vector(1, h.sessionId),
    uint(h.cipherSuite, 2),
    uint(0, 1),
    writeExtensions(h.extensions),
  ]);
}

export function decodeServerHello(body: Buffer): Result<ServerHello> {
  return decodeWith("ServerHello", body, (r) => {
    const serverVersion = r.u16();
    const random = r.bytes(32);
    const sessionId = r.vector(1, 0, 32);
    const cipherSuite = r.u16();
    if (r.u8() !== 0) return refuse("ServerHello: compression other than null");
    const extensions = readExtensions(r);
    return r.remaining === 0
      ? ok({ serverVersion, random, sessionId, cipherSuite, extensions })
      : refuse("ServerHello: trailing bytes");
  });
}

/** A PSK ServerKeyExchange (RFC 4279 §2) and ClientKeyExchange share one shape: an identity hint or identity. */
export function encodePskIdentity(identity: Buffer): Buffer {
  return vector(2, identity);
}

/** The identity of a PSK ClientKeyExchange, or the hint of a PSK ServerKeyExchange (RFC 4279 §2: ≤ 2^16-1 bytes). */
export function decodePskIdentity(body: Buffer): Result<Buffer> {
  return decodeWith("PSK identity", body, (r) => {
    const identity = r.vector(2, 0, 0xffff);
    return r.remaining === 0 ? ok(identity) : refuse("PSK identity: trailing bytes");
  });
}

/** Finished carries the 12-byte verify_data of RFC 5246 §7.4.9. */
export function decodeFinished(body: Buffer): Result<Buffer> {
  return body.length === 12 ? ok(body) : refuse(`Finished: verify_data of ${body.length} bytes, not 12`);
}

/** Alert levels and the descriptions this server sends or reads (RFC 5246 §7.2, RFC 4279 §2). */
export const AlertLevel = { warning: 1, fatal: 2 } as const;
export const AlertDescription = {
  closeNotify: 0,
  unexpectedMessage: 10,
  badRecordMac: 20,
  handshakeFailure: 40,
  badCertificate: 42,
  unsupportedCertificate: 43,
  illegalParameter: 47,
  decodeError: 50,
  decryptError: 51,
  internalError: 80,
  noRenegotiation: 100,
  unknownPskIdentity: 115,
} as const;

export interface Alert {
  level: number;
  description: number;
}

export function decodeAlert(body: Buffer): Result<Alert> {
  return body.length === 2 ? ok({ level: body[0]!, description: body[1]! }) : refuse("Alert: not 2 bytes");
}

export function encodeAlert(alert: Alert): Buffer {
  return Buffer.from([alert.level, alert.description]);
}

/** ChangeCipherSpec's one byte (RFC 5246 §7.1). */
export const CHANGE_CIPHER_SPEC = Buffer.from([1]);

/** The extension of a type in a list, if present. */
export function findExtension(extensions: Extension[], type: number): Extension | undefined {
  return extensions.find((e) => e.type === type);
}
