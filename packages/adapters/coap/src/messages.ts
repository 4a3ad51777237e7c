import { generate, parse, type ParsedPacket } from "coap-packet";
import { decodeBlock, encodeBlock, type BlockOption } from "./blockwise/block-option.js";
import { decodeUint, encodeUint } from "./uint.js";

/**
 * The CoAP message layer's pure parts (RFC 7252): decoding a datagram into a
 * request, and encoding answers. Everything here is a function of its input.
 */

/** Response codes the adapter answers with. */
export const CODES = {
  created: "2.01",
  changed: "2.04",
  content: "2.05",
  continue: "2.31",
  badRequest: "4.00",
  unauthorized: "4.01",
  badOption: "4.02",
  forbidden: "4.03",
  notFound: "4.04",
  methodNotAllowed: "4.05",
  incomplete: "4.08",
  tooLarge: "4.13",
  internal: "5.00",
  unavailable: "5.03",
} as const;

/** Option number of Observe (RFC 7641). */
const OBSERVE = "Observe";
/** Content-Format application/octet-stream. */
const OCTET_STREAM = 42;
/** Request-Tag (RFC 9175 §3): tells apart two uploads to the same resource; coap-packet names it by number. */
const REQUEST_TAG = "292";

/** A datagram after decoding. */
export type Decoded =
  | {
      kind: "request";
      packet: ParsedPacket;
      method: string;
      path: string[];
      query: Map<string, string>;
      /** Uri-Path and Uri-Query as sent: with the sender, what identifies a block-wise transfer. */
      resource: string;
      observe: number | undefined;
      /** Block1 (RFC 7959): this request's payload is one block of a larger body. */
      block1: BlockOption | undefined;
      /** Block2 (RFC 7959): which block of the response the client asks for, or the block size it wants. */
      block2: BlockOption | undefined;
      /** Size1 (RFC 7959 §4): the whole body's size the client announces. */
      size1: number | undefined;
      /** Request-Tag (RFC 9175), hex; "" when absent. */
      requestTag: string;
    }
  | { kind: "ack" | "reset"; messageId: number }
  /**
   * Not a request we can take: `reply` is a 4.00 for a readable header (4.02 for a malformed Block option), undefined
   * when even the header is broken.
   */
  | { kind: "malformed"; reason: string; reply: Buffer | undefined };

/** A datagram that is a request. */
export type DecodedRequest = Extract<Decoded, { kind: "request" }>;

const METHODS: Record<string, string> = {
  "0.01": "GET",
  "0.02": "POST",
  "0.03": "PUT",
  "0.04": "DELETE",
  "0.05": "FETCH",
};

/** Decodes one datagram; never throws. */
export function decode(datagram: Buffer): Decoded {
  let packet: ParsedPacket;
  try {
    packet = parse(datagram);
  } catch (err) {
    return { kind: "malformed", reason: (err as Error).message, reply: badRequestFor(datagram) };
  }
  if (packet.ack) return { kind: "ack", messageId: packet.messageId };
  if (packet.reset) return { kind: "reset", messageId: packet.messageId };
  const method = METHODS[packet.code];
  if (!packet.code.startsWith("0.") || packet.code === "0.00") {
    return { kind: "malformed", reason: `code ${packet.code} is not a request`, reply: undefined };
  }
  const text = (name: string) => packet.options.filter((o) => o.name === name).map((o) => o.value.toString("utf8"));
  const option = (name: string) => packet.options.find((o) => o.name === name)?.value;
  const queries = text("Uri-Query");
  const query = new Map<string, string>();
  for (const q of queries) {
    const eq = q.indexOf("=");
    if (eq > 0) query.set(q.slice(0, eq), q.slice(eq + 1));
  }
  const blocks: (BlockOption | undefined)[] = [];
  for (const name of ["Block1", "Block2"]) {
    const value = option(name);
    const block = value && decodeBlock(value);
    if (typeof block === "string") {
      const reserved = block === "reserved-szx";
      const reply = answerTo(
        packet,
        reserved ? CODES.badRequest : CODES.badOption,
        `${name}: bad ${reserved ? "SZX 7" : "value"}`,
      );
      return { kind: "malformed", reason: `${name} ${block}`, reply };
    }
    blocks.push(block);
  }
  const observeOption = option(OBSERVE);
  const size1 = option("Size1");
  return {
    kind: "request",
    packet,
    method: method ?? packet.code,
    path: text("Uri-Path"),
    query,
    resource: `${text("Uri-Path").join("/")}?${queries.join("&")}`,
    observe: observeOption ? decodeUint(observeOption) : undefined,
    block1: blocks[0],
    block2: blocks[1],
    size1: size1 && size1.length <= 4 ? decodeUint(size1) : undefined,
    requestTag: option(REQUEST_TAG)?.toString("hex") ?? "",
  };
}

/** An error answer to a request the layer cannot take, with its own message id (piggybacked or NON). */
function answerTo(packet: ParsedPacket, code: string, text: string): Buffer {
  return generate({
    code,
    messageId: packet.messageId,
    token: packet.token,
    confirmable: false,
    ack: packet.confirmable,
    payload: Buffer.from(text),
  });
}

/** A 4.00 answering a datagram whose fixed header (and token) can still be read (RFC 7252 §3). */
function badRequestFor(d: Buffer): Buffer | undefined {
  if (d.length < 4 || d[0]! >> 6 !== 1) return undefined;
  const type = (d[0]! >> 4) & 0x3;
  const tokenLength = d[0]! & 0x0f;
  if (tokenLength > 8 || d.length < 4 + tokenLength || type > 1) return undefined;
  return generate({
    code: CODES.badRequest,
    messageId: d.readUInt16BE(2),
    token: d.subarray(4, 4 + tokenLength),
    confirmable: false,
    ack: type === 0,
    payload: Buffer.from("malformed CoAP message"),
  });
}

/** Options of an answer beyond its code and payload. */
export interface AnswerOptions {
  /** Message id of a NON answer (a confirmable request's answer reuses the request's). */
  readonly messageId?: number;
  readonly observe?: number;
  /** Block1 of an upload: which block is acknowledged, and the block size the server wants (RFC 7959 §2.3). */
  readonly block1?: BlockOption;
  /** Block2: which block of the representation this payload is (RFC 7959 §2.4). */
  readonly block2?: BlockOption;
  /** Size1 in a 4.13: the largest body the server takes, bytes (RFC 7959 §2.9.3). */
  readonly size1?: number;
  /** Size2: the whole representation's size, bytes (RFC 7959 §4). */
  readonly size2?: number;
  readonly etag?: Buffer;
  /** Max-Age, seconds: in a 5.03, when to try again (RFC 7252 §5.9.3.4). */
  readonly maxAge?: number;
}

/** The answer to a request: piggybacked on the ACK of a confirmable one, else a NON with a new message id. */
export function response(
  request: ParsedPacket,
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

function optionsOf(code: string, payload: Uint8Array | string, extra: AnswerOptions) {
  const options: { name: string; value: Buffer }[] = [];
  if (extra.observe !== undefined) options.push({ name: OBSERVE, value: encodeUint(extra.observe) });
  if (extra.etag) options.push({ name: "ETag", value: extra.etag });
  if (payload.length > 0 && code.startsWith("2.")) {
    options.push({ name: "Content-Format", value: encodeUint(OCTET_STREAM) });
  }
  if (extra.maxAge !== undefined) options.push({ name: "Max-Age", value: encodeUint(extra.maxAge) });
  if (extra.block2) options.push({ name: "Block2", value: encodeBlock(extra.block2) });
  if (extra.block1) options.push({ name: "Block1", value: encodeBlock(extra.block1) });
  if (extra.size2 !== undefined) options.push({ name: "Size2", value: encodeUint(extra.size2) });
  if (extra.size1 !== undefined) options.push({ name: "Size1", value: encodeUint(extra.size1) });
  return options;
}
