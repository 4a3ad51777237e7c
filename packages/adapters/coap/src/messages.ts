import { generate, parse, type ParsedPacket } from "coap-packet";

/**
 * The CoAP message layer's pure parts (RFC 7252): decoding a datagram into a
 * request, and encoding answers. Everything here is a function of its input.
 */

/** Response codes the adapter answers with. */
export const CODES = {
  created: "2.01",
  changed: "2.04",
  content: "2.05",
  badRequest: "4.00",
  unauthorized: "4.01",
  forbidden: "4.03",
  notFound: "4.04",
  methodNotAllowed: "4.05",
  tooLarge: "4.13",
  internal: "5.00",
  unavailable: "5.03",
} as const;

/** Option number of Observe (RFC 7641). */
const OBSERVE = "Observe";
/** Content-Format application/octet-stream. */
const OCTET_STREAM = 42;

/** A datagram after decoding. */
export type Decoded =
  | {
      kind: "request";
      packet: ParsedPacket;
      method: string;
      path: string[];
      query: Map<string, string>;
      observe: number | undefined;
    }
  | { kind: "ack" | "reset"; messageId: number }
  /** Not CoAP we can answer: `reply` is a 4.00 for a readable header, undefined when even that is broken. */
  | { kind: "malformed"; reason: string; reply: Buffer | undefined };

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
  const query = new Map<string, string>();
  for (const q of text("Uri-Query")) {
    const eq = q.indexOf("=");
    if (eq > 0) query.set(q.slice(0, eq), q.slice(eq + 1));
  }
  const observeOption = packet.options.find((o) => o.name === OBSERVE);
  const observe = observeOption ? observeOption.value.reduce((n, b) => n * 256 + b, 0) : undefined;
  return { kind: "request", packet, method: method ?? packet.code, path: text("Uri-Path"), query, observe };
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

/** The answer to a request: piggybacked on the ACK of a confirmable one, else a NON with a new message id. */
export function response(
  request: ParsedPacket,
  code: string,
  payload: Buffer | string = "",
  extra: { observe?: number; messageId?: number } = {},
): Buffer {
  const options = [];
  if (extra.observe !== undefined) options.push({ name: OBSERVE, value: uint(extra.observe) });
  if (payload.length > 0 && code.startsWith("2.")) options.push({ name: "Content-Format", value: uint(OCTET_STREAM) });
  return generate({
    code,
    token: request.token,
    payload: Buffer.from(payload),
    options,
    ...(request.confirmable
      ? { ack: true, messageId: request.messageId }
      : { confirmable: false, messageId: extra.messageId ?? 0 }),
  });
}

/** A confirmable notification of an observation (RFC 7641 §4.2). */
export function notification(
  token: Buffer,
  messageId: number,
  sequence: number,
  code: string,
  payload: Uint8Array,
): Buffer {
  const options = [{ name: OBSERVE, value: uint(sequence) }];
  if (payload.length > 0 && code.startsWith("2.")) options.push({ name: "Content-Format", value: uint(OCTET_STREAM) });
  return generate({ code, token, messageId, confirmable: true, options, payload: Buffer.from(payload) });
}

/** A CoAP uint option value: big-endian, no leading zero bytes (0 is empty). */
function uint(n: number): Buffer {
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from(bytes);
}
