import { parse, type ParsedPacket } from "coap-packet";
import { decodeBlock, type BlockOption } from "./blockwise/block-option.js";
import { emptyMessage, errorAnswer } from "./encode-message.js";
import { frameProblem } from "./frame-check.js";
import { decodeUint } from "./uint.js";

/**
 * The CoAP message layer's pure decoding (RFC 7252 §3, §5.10): a datagram becomes a request, a response (piggybacked
 * on an ACK, or a separate CON/NON one such as a notification), an empty ACK/RST/ping, or a refusal. Everything here
 * is a function of its input.
 */

/** Response codes the adapter answers with. */
export const CODES = {
  created: "2.01",
  deleted: "2.02",
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
  /** RFC 8516: the tenant is over its uplink rate. */
  tooManyRequests: "4.29",
  internal: "5.00",
  unavailable: "5.03",
} as const;

/** Request-Tag (RFC 9175 §3): tells apart two uploads to the same resource; coap-packet names it by number. */
const REQUEST_TAG = "292";

/** A datagram that is a request (code 0.01 to 0.31). */
export interface DecodedRequest {
  readonly kind: "request";
  readonly packet: ParsedPacket;
  readonly method: string;
  readonly path: string[];
  /** Uri-Query options of the form name=value; a later repeat wins, options without `=` are left out. */
  readonly query: Map<string, string>;
  /** Uri-Query options as sent, in order, repeats and flags (`Q`) included. */
  readonly queryList: string[];
  /** Uri-Path and Uri-Query as sent: with the sender, what identifies a block-wise transfer. */
  readonly resource: string;
  readonly observe: number | undefined;
  /** Content-Format of the payload (RFC 7252 §5.10.3); undefined when absent or longer than 2 bytes. */
  readonly contentFormat: number | undefined;
  /** Accept (RFC 7252 §5.10.4): the Content-Format the client wants back. */
  readonly accept: number | undefined;
  /** Block1 (RFC 7959): this request's payload is one block of a larger body. */
  readonly block1: BlockOption | undefined;
  /** Block2 (RFC 7959): which block of the response the client asks for, or the block size it wants. */
  readonly block2: BlockOption | undefined;
  /** Size1 (RFC 7959 §4): the whole body's size the client announces. */
  readonly size1: number | undefined;
  /** Request-Tag (RFC 9175), hex; "" when absent. */
  readonly requestTag: string;
}

/** A datagram that is a response (code 2.xx, 4.xx or 5.xx): piggybacked when `packet.ack`, else separate. */
export interface DecodedResponse {
  readonly kind: "response";
  readonly packet: ParsedPacket;
  /** Observe (RFC 7641 §2): the notification's 24-bit sequence number; undefined when absent. */
  readonly observe: number | undefined;
  readonly contentFormat: number | undefined;
  /** Block2 (RFC 7959 §2.4): which block of the representation the payload is. */
  readonly block2: BlockOption | undefined;
  /** Block1 (RFC 7959 §2.5): which block of the client's upload this acknowledges, and the block size wanted. */
  readonly block1: BlockOption | undefined;
  /** Size2 (RFC 7959 §4): the whole representation's size, bytes. */
  readonly size2: number | undefined;
  readonly etag: Buffer | undefined;
  /** Location-Path segments (RFC 7252 §5.10.7), e.g. the instance a Create made. */
  readonly locationPath: string[];
  /** Max-Age, seconds (RFC 7252 §5.10.5); undefined when absent (which means 60). */
  readonly maxAge: number | undefined;
}

/** A datagram after decoding. */
export type Decoded =
  | DecodedRequest
  | DecodedResponse
  /** An empty ACK or RST (RFC 7252 §4.2, §4.3): the answer to a confirmable message the layer sent. */
  | { readonly kind: "ack" | "reset"; readonly messageId: number }
  /** An empty CON, "CoAP ping" (RFC 7252 §4.3): answered with `reply`, an RST. */
  | { readonly kind: "ping"; readonly reply: Buffer }
  /**
   * Not a message the layer takes: `reply` is a 4.00 to a request whose header can still be read (4.02 for a
   * malformed critical option), undefined when it is dropped silently (RFC 7252 §4.2, §4.3).
   */
  | { readonly kind: "malformed"; readonly reason: string; readonly reply: Buffer | undefined };

const METHODS: Record<string, string> = {
  "0.01": "GET",
  "0.02": "POST",
  "0.03": "PUT",
  "0.04": "DELETE",
  "0.05": "FETCH",
  "0.06": "PATCH",
  "0.07": "iPATCH",
};

const malformed = (reason: string, reply?: Buffer): Decoded => ({ kind: "malformed", reason, reply });

/** Decodes one datagram; never throws. */
export function decode(datagram: Buffer): Decoded {
  const problem = frameProblem(datagram);
  if (problem) return malformed(problem, badRequestFor(datagram));
  let packet: ParsedPacket;
  try {
    packet = parse(datagram);
  } catch (err) {
    return malformed((err as Error).message, badRequestFor(datagram));
  }
  const type = packet.confirmable ? "CON" : packet.ack ? "ACK" : packet.reset ? "RST" : "NON";
  if (packet.code === "0.00") {
    if (type === "ACK" || type === "RST")
      return { kind: type === "ACK" ? "ack" : "reset", messageId: packet.messageId };
    if (type === "CON") return { kind: "ping", reply: emptyMessage("reset", packet.messageId) };
    return malformed("an empty NON message");
  }
  const codeClass = packet.code[0];
  if (codeClass === "0") {
    if (type === "ACK" || type === "RST") return malformed(`request code ${packet.code} in an ${type}`);
    return decodeRequest(packet);
  }
  if (codeClass !== "2" && codeClass !== "4" && codeClass !== "5") return malformed(`reserved code ${packet.code}`);
  if (type === "RST") return malformed("an RST with a code");
  return decodeResponse(packet);
}

const texts = (packet: ParsedPacket, name: string) =>
  packet.options.filter((o) => o.name === name).map((o) => o.value.toString("utf8"));
const optionOf = (packet: ParsedPacket, name: string) => packet.options.find((o) => o.name === name)?.value;
/** A uint option of at most `maxBytes`; undefined when absent or longer. */
const uintOf = (packet: ParsedPacket, name: string, maxBytes: number) => {
  const value = optionOf(packet, name);
  return value && value.length <= maxBytes ? decodeUint(value) : undefined;
};

function decodeRequest(packet: ParsedPacket): Decoded {
  const queryList = texts(packet, "Uri-Query");
  const query = new Map<string, string>();
  for (const q of queryList) {
    const eq = q.indexOf("=");
    if (eq > 0) query.set(q.slice(0, eq), q.slice(eq + 1));
  }
  const blocks: (BlockOption | undefined)[] = [];
  for (const name of ["Block1", "Block2"]) {
    const value = optionOf(packet, name);
    const block = value && decodeBlock(value);
    if (typeof block === "string") {
      const reserved = block === "reserved-szx";
      const code = reserved ? CODES.badRequest : CODES.badOption;
      return malformed(`${name} ${block}`, errorAnswer(packet, code, `${name}: bad ${reserved ? "SZX 7" : "value"}`));
    }
    blocks.push(block);
  }
  const accept = optionOf(packet, "Accept");
  if (accept && accept.length > 2)
    return malformed("Accept longer than 2 bytes", errorAnswer(packet, "4.02", "Accept"));
  const path = texts(packet, "Uri-Path");
  return {
    kind: "request",
    packet,
    method: METHODS[packet.code] ?? packet.code,
    path,
    query,
    queryList,
    resource: `${path.join("/")}?${queryList.join("&")}`,
    observe: uintOf(packet, "Observe", 3),
    contentFormat: uintOf(packet, "Content-Format", 2),
    accept: accept && decodeUint(accept),
    block1: blocks[0],
    block2: blocks[1],
    size1: uintOf(packet, "Size1", 4),
    requestTag: optionOf(packet, REQUEST_TAG)?.toString("hex") ?? "",
  };
}

function decodeResponse(packet: ParsedPacket): Decoded {
  const observe = optionOf(packet, "Observe");
  if (observe && observe.length > 3) return malformed("Observe longer than 3 bytes");
  const blocks: (BlockOption | undefined)[] = [];
  for (const name of ["Block1", "Block2"]) {
    const value = optionOf(packet, name);
    const block = value && decodeBlock(value);
    if (typeof block === "string") return malformed(`${name} ${block}`);
    blocks.push(block);
  }
  return {
    kind: "response",
    packet,
    observe: observe && decodeUint(observe),
    contentFormat: uintOf(packet, "Content-Format", 2),
    block1: blocks[0],
    block2: blocks[1],
    size2: uintOf(packet, "Size2", 4),
    etag: optionOf(packet, "ETag"),
    locationPath: texts(packet, "Location-Path"),
    maxAge: uintOf(packet, "Max-Age", 4),
  };
}

/** A 4.00 answering a request whose fixed header (and token) can still be read (RFC 7252 §3). */
function badRequestFor(d: Buffer): Buffer | undefined {
  if (d.length < 4 || d[0]! >> 6 !== 1) return undefined;
  const type = (d[0]! >> 4) & 0x3;
  const tokenLength = d[0]! & 0x0f;
  const isRequest = d[1]! >= 1 && d[1]! <= 31;
  if (!isRequest || tokenLength > 8 || d.length < 4 + tokenLength || type > 1) return undefined;
  const packet = { messageId: d.readUInt16BE(2), token: d.subarray(4, 4 + tokenLength), confirmable: type === 0 };
  return errorAnswer(packet, CODES.badRequest, "malformed CoAP message");
}
