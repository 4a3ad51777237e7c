import { decodeWith, uint } from "./bytes.js";
import { ok, refuse, type Result } from "./result.js";

/** Handshake message types (RFC 5246 §7.4, RFC 6347 §4.3.2). */
export const HandshakeType = {
  helloRequest: 0,
  clientHello: 1,
  serverHello: 2,
  helloVerifyRequest: 3,
  certificate: 11,
  serverKeyExchange: 12,
  certificateRequest: 13,
  serverHelloDone: 14,
  certificateVerify: 15,
  clientKeyExchange: 16,
  finished: 20,
} as const;

/** The DTLS handshake header is 12 bytes: type, length, message_seq, fragment_offset, fragment_length. */
export const HANDSHAKE_HEADER = 12;
/** Largest handshake message reassembled; a ClientHello or a device's certificate chain is far below. */
const MAX_HANDSHAKE_MESSAGE = 8192;

/** One handshake fragment as carried in a record (RFC 6347 §4.2.2). */
export interface HandshakeFragment {
  msgType: number;
  length: number;
  messageSeq: number;
  fragmentOffset: number;
  body: Buffer;
}

/** A whole handshake message. */
export interface HandshakeMessage {
  msgType: number;
  messageSeq: number;
  body: Buffer;
}

/** Splits a handshake record's body into its fragments (several may share a record). */
export function decodeFragments(recordBody: Buffer): Result<HandshakeFragment[]> {
  return decodeWith("handshake", recordBody, (r) => {
    const out: HandshakeFragment[] = [];
    while (r.remaining > 0) {
      const msgType = r.u8();
      const length = r.u24();
      const messageSeq = r.u16();
      const fragmentOffset = r.u24();
      const body = r.vector(3, 0, MAX_HANDSHAKE_MESSAGE);
      if (length > MAX_HANDSHAKE_MESSAGE) return refuse(`handshake: length ${length} over ${MAX_HANDSHAKE_MESSAGE}`);
      if (fragmentOffset + body.length > length) return refuse("handshake: fragment past the message's end");
      out.push({ msgType, length, messageSeq, fragmentOffset, body });
    }
    return ok(out);
  });
}

function header(msgType: number, length: number, seq: number, offset: number, fragLength: number): Buffer {
  return Buffer.concat([uint(msgType, 1), uint(length, 3), uint(seq, 2), uint(offset, 3), uint(fragLength, 3)]);
}

/**
 * The message as the handshake hash sees it: one fragment covering the whole body (RFC 6347 §4.2.6), whatever
 * fragments carried it.
 */
export function encodeHandshake(message: HandshakeMessage): Buffer {
  const { msgType, messageSeq, body } = message;
  return Buffer.concat([header(msgType, body.length, messageSeq, 0, body.length), body]);
}

/** The message cut into fragments of at most `maxBody` bytes each, each with its own header. */
export function fragmentHandshake(message: HandshakeMessage, maxBody: number): Buffer[] {
  const { msgType, messageSeq, body } = message;
  if (body.length <= maxBody) return [encodeHandshake(message)];
  const out: Buffer[] = [];
  for (let offset = 0; offset < body.length; offset += maxBody) {
    const part = body.subarray(offset, offset + maxBody);
    out.push(Buffer.concat([header(msgType, body.length, messageSeq, offset, part.length), part]));
  }
  return out;
}

/**
 * Puts fragments of one message back together, overlapping or repeated ones included (RFC 6347 §4.2.3). It keeps
 * at most one message in progress: the peer sends the next only after this one.
 */
export class Reassembler {
  private current: { msgType: number; messageSeq: number; body: Buffer; have: Uint8Array; missing: number } | undefined;

  /** Adds a fragment; returns the message once every byte has arrived, or a refusal for an inconsistent one. */
  add(fragment: HandshakeFragment): Result<HandshakeMessage | undefined> {
    const { msgType, length, messageSeq, fragmentOffset, body } = fragment;
    if (fragmentOffset === 0 && body.length === length) {
      this.current = undefined;
      return ok({ msgType, messageSeq, body: Buffer.from(body) });
    }
    let cur = this.current;
    if (!cur || cur.messageSeq !== messageSeq) {
      cur = { msgType, messageSeq, body: Buffer.alloc(length), have: new Uint8Array(length), missing: length };
      this.current = cur;
    }
    if (cur.msgType !== msgType || cur.body.length !== length) {
      this.current = undefined;
      return refuse("handshake: fragments of one message disagree on its type or length");
    }
    body.copy(cur.body, fragmentOffset);
    for (let i = fragmentOffset; i < fragmentOffset + body.length; i++) {
      if (!cur.have[i]) {
        cur.have[i] = 1;
        cur.missing--;
      }
    }
    if (cur.missing > 0) return ok(undefined);
    this.current = undefined;
    return ok({ msgType, messageSeq, body: cur.body });
  }
}
