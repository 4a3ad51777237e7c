import { generate } from "coap-packet";
import { encodeBlock, type BlockOption } from "./blockwise/block-option.js";
import { encodeUint } from "./uint.js";

/**
 * The CoAP message layer's pure encoding (RFC 7252 §3): answers, notifications, requests and empty messages. Every
 * function here is a function of its input; one whose message would not fit a datagram (1280 bytes) throws.
 */

/** Content-Format application/octet-stream: what a 2.xx answer with a payload says when its handler names none. */
const OCTET_STREAM = 42;

/** The parts of a request an answer to it needs. */
export interface AnsweredRequest {
  readonly messageId: number;
  readonly token: Buffer;
  readonly confirmable: boolean;
}

/** Options of an answer beyond its code and payload. */
export interface AnswerOptions {
  /** Message id of a NON answer (a confirmable request's answer reuses the request's). */
  readonly messageId?: number;
  readonly observe?: number;
  /** Content-Format of the payload; a 2.xx with a payload and none given says 42 (octet-stream). */
  readonly contentFormat?: number;
  /** Location-Path segments (RFC 7252 §5.10.7), e.g. `["rd", "x1"]` for a 2.01 Created. */
  readonly locationPath?: readonly string[];
  /** Block1 of an upload: which block is acknowledged, and the block size the server wants (RFC 7959 §2.3). */
  readonly block1?: BlockOption;
  /** Block2: which block of the representation this payload is (RFC 7959 §2.4). */
  readonly block2?: BlockOption;
  /** Size1 in a 4.13: the largest body the server takes, bytes (RFC 7959 §2.9.3). */
  readonly size1?: number;
  /** Size2: the whole representation's size, bytes (RFC 7959 §4). */
  readonly size2?: number;
  readonly etag?: Buffer;
  /** Max-Age, seconds (RFC 7252 §5.10.5): how long the answer is fresh; in a 5.03, when to try again. */
  readonly maxAge?: number;
}

/** The answer to a request: piggybacked on the ACK of a confirmable one, else a NON with a new message id. */
export function response(
  request: AnsweredRequest,
  code: string,
  payload: Uint8Array | string = "",
  extra: AnswerOptions = {},
): Buffer {
  return generate({
    code,
    token: request.token,
    payload: Buffer.from(payload),
    options: optionsOf(code, payload, extra),
    ...(request.confirmable
      ? { ack: true, messageId: request.messageId }
      : { confirmable: false, messageId: extra.messageId ?? 0 }),
  });
}

/** An error answer with a diagnostic text (RFC 7252 §5.5.2), to a request the layer cannot take. */
export function errorAnswer(request: AnsweredRequest, code: string, text: string): Buffer {
  return response(request, code, text, { messageId: request.messageId });
}

/** A confirmable notification of an observation (RFC 7641 §4.2); `extra` may make it the first of blocks. */
export function notification(
  token: Buffer,
  messageId: number,
  sequence: number,
  code: string,
  payload: Uint8Array,
  extra: Omit<AnswerOptions, "messageId" | "observe"> = {},
): Buffer {
  const options = optionsOf(code, payload, { ...extra, observe: sequence });
  return generate({ code, token, messageId, confirmable: true, options, payload: Buffer.from(payload) });
}

/** What a request message carries (RFC 7252 §5.10). */
export interface RequestFields {
  /** Method code, `0.01` GET to `0.07` iPATCH. */
  readonly code: string;
  readonly messageId: number;
  readonly token: Buffer;
  readonly confirmable: boolean;
  readonly path: readonly string[];
  readonly query: readonly string[];
  readonly payload: Uint8Array;
  readonly contentFormat?: number;
  readonly accept?: number;
  readonly observe?: number;
  /** Block2 asking for one block of the response, or the block size wanted (RFC 7959 §2.4). */
  readonly block2?: BlockOption;
  /** Block1: this payload is one block of a larger body (RFC 7959 §2.5). */
  readonly block1?: BlockOption;
  /** Size1: the whole body's size, bytes, announced with its first block (RFC 7959 §4). */
  readonly size1?: number;
}

/** A request message. */
export function requestMessage(f: RequestFields): Buffer {
  const text = (name: string, values: readonly string[]) => values.map((v) => ({ name, value: Buffer.from(v) }));
  const uint = (name: string, value: number | undefined) =>
    value === undefined ? [] : [{ name, value: encodeUint(value) }];
  const options = [
    ...uint("Observe", f.observe),
    ...text("Uri-Path", f.path),
    ...uint("Content-Format", f.contentFormat),
    ...text("Uri-Query", f.query),
    ...uint("Accept", f.accept),
    ...(f.block2 ? [{ name: "Block2", value: encodeBlock(f.block2) }] : []),
    ...(f.block1 ? [{ name: "Block1", value: encodeBlock(f.block1) }] : []),
    ...uint("Size1", f.size1),
  ];
  return generate({
    code: f.code,
    messageId: f.messageId,
    token: f.token,
    confirmable: f.confirmable,
    options,
    payload: Buffer.from(f.payload),
  });
}

/** An empty ACK or RST (RFC 7252 §4.2, §4.3) of message `messageId`. */
export function emptyMessage(kind: "ack" | "reset", messageId: number): Buffer {
  return generate({ code: "0.00", messageId, [kind]: true, token: Buffer.alloc(0) });
}

function optionsOf(code: string, payload: Uint8Array | string, extra: AnswerOptions) {
  const options: { name: string; value: Buffer }[] = [];
  if (extra.observe !== undefined) options.push({ name: "Observe", value: encodeUint(extra.observe) });
  if (extra.etag) options.push({ name: "ETag", value: extra.etag });
  for (const segment of extra.locationPath ?? []) options.push({ name: "Location-Path", value: Buffer.from(segment) });
  if (extra.contentFormat !== undefined) {
    options.push({ name: "Content-Format", value: encodeUint(extra.contentFormat) });
  } else if (payload.length > 0 && code.startsWith("2.")) {
    options.push({ name: "Content-Format", value: encodeUint(OCTET_STREAM) });
  }
  if (extra.maxAge !== undefined) options.push({ name: "Max-Age", value: encodeUint(extra.maxAge) });
  if (extra.block2) options.push({ name: "Block2", value: encodeBlock(extra.block2) });
  if (extra.block1) options.push({ name: "Block1", value: encodeBlock(extra.block1) });
  if (extra.size2 !== undefined) options.push({ name: "Size2", value: encodeUint(extra.size2) });
  if (extra.size1 !== undefined) options.push({ name: "Size1", value: encodeUint(extra.size1) });
  return options;
}
