import type { CookieJar } from "./cookie.js";
import { decodeFragments, encodeHandshake, type HandshakeMessage, HandshakeType } from "./handshake.js";
import { type ClientHello, decodeClientHello, encodeHelloVerifyRequest } from "./messages.js";
import { ContentType, decodeRecords, DTLS10, encodeRecord } from "./record.js";

/** What to do with a datagram from an address without a handshake in progress. */
export type GateVerdict =
  | { kind: "verify"; reply: Buffer }
  | { kind: "accept"; hello: ClientHello; message: HandshakeMessage; recordSeq: number }
  | { kind: "drop"; reason: string };

/**
 * The stateless first step of RFC 6347 §4.2.1: a ClientHello without this address's cookie gets a HelloVerifyRequest
 * and nothing is kept; one with it may start a handshake. Anything else is dropped. A ClientHello must come whole in
 * the datagram's first record (a PSK ClientHello is a few hundred bytes).
 */
export function helloGate(datagram: Buffer, address: string, jar: CookieJar): GateVerdict {
  const records = decodeRecords(datagram);
  if (!records.ok) return { kind: "drop", reason: records.reason };
  const record = records.value[0];
  if (!record || record.type !== ContentType.handshake || record.epoch !== 0) {
    return { kind: "drop", reason: "not a ClientHello: no session for this address" };
  }
  const fragments = decodeFragments(record.body);
  if (!fragments.ok) return { kind: "drop", reason: fragments.reason };
  const f = fragments.value[0];
  if (!f || f.msgType !== HandshakeType.clientHello) return { kind: "drop", reason: "not a ClientHello" };
  if (f.fragmentOffset !== 0 || f.body.length !== f.length) return { kind: "drop", reason: "fragmented ClientHello" };
  const hello = decodeClientHello(f.body);
  if (!hello.ok) return { kind: "drop", reason: hello.reason };
  const message = { msgType: f.msgType, messageSeq: f.messageSeq, body: Buffer.from(f.body) };
  if (jar.check(address, hello.value)) return { kind: "accept", hello: hello.value, message, recordSeq: record.seq };
  const verify = encodeHandshake({
    msgType: HandshakeType.helloVerifyRequest,
    messageSeq: f.messageSeq,
    body: encodeHelloVerifyRequest(DTLS10, jar.make(address, hello.value)),
  });
  const reply = encodeRecord({ type: ContentType.handshake, version: DTLS10, epoch: 0, seq: record.seq, body: verify });
  return { kind: "verify", reply };
}
