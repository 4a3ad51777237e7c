import { RECEIVE_MAXIMUM, ReasonCode } from "../reason-codes.js";
import { PacketFramer, type FrameReader } from "./packet-framer.js";

/** Control packet types (MQTT 5.0 §2.1.2). */
const CONNECT = 1;
const PUBLISH = 3;
const DISCONNECT = 14;

/** Why a device's packet is refused, with the DISCONNECT reason code the standard gives for it. */
export interface InboundProblem {
  readonly code: number;
  readonly reason: string;
}

/**
 * Bytes of the value of each property a client's PUBLISH may carry (MQTT 5.0 §3.3.2.3), by identifier: a fixed
 * size, or "string" (2-byte length and that many bytes: UTF-8 string, binary data) or "pair" (two strings). The
 * Subscription Identifier (0x0B) goes only from server to client (MQTT-3.3.4-6).
 */
const PUBLISH_PROPERTIES: Partial<Record<number, number | "string" | "pair">> = {
  0x01: 1, // Payload Format Indicator
  0x02: 4, // Message Expiry Interval
  0x03: "string", // Content Type
  0x08: "string", // Response Topic
  0x09: "string", // Correlation Data
  0x23: 2, // Topic Alias
  0x26: "pair", // User Property (the one that may repeat)
};
const SUBSCRIPTION_IDENTIFIER = 0x0b;
const TOPIC_ALIAS = 0x23;
const USER_PROPERTY = 0x26;

const malformed = (reason: string): InboundProblem => ({ code: ReasonCode.MALFORMED_PACKET, reason });
const protocolError = (reason: string): InboundProblem => ({ code: ReasonCode.PROTOCOL_ERROR, reason });

/** A variable byte integer at `at` (MQTT 5.0 §1.5.5): its value and size; "short" if `buf` ends first. */
function varint(buf: Uint8Array, at: number): { value: number; size: number } | "short" | "bad" {
  let value = 0;
  for (let k = 0; k < 4; k++) {
    if (at + k >= buf.length) return "short";
    const byte = buf[at + k]!;
    value += (byte & 0x7f) * 128 ** k;
    if (!(byte & 0x80)) return { value, size: k + 1 };
  }
  return "bad";
}

/**
 * What is wrong with an MQTT 5.0 PUBLISH, from its fixed header flags and the start of its body (`body` may hold
 * the whole packet or more): "short" when its topic and properties are not all in `body` yet (and `complete` is
 * false), undefined when nothing is. Checks what aedes would take as given or only close the connection for:
 * QoS 3, a wildcard or, without a Topic Alias, empty topic name, a property not valid in PUBLISH or the same
 * single property twice.
 */
export function publishProblem(
  flags: number,
  body: Uint8Array,
  complete: boolean,
): InboundProblem | "short" | undefined {
  const short = complete ? malformed("PUBLISH shorter than its topic and properties") : "short";
  const qos = (flags >> 1) & 3;
  if (qos === 3) return malformed("PUBLISH with QoS 3");
  if (body.length < 2) return short;
  const topicEnd = 2 + ((body[0]! << 8) | body[1]!);
  if (body.length < topicEnd) return short;
  for (let k = 2; k < topicEnd; k++)
    if (body[k] === 0x23 || body[k] === 0x2b)
      return { code: ReasonCode.TOPIC_NAME_INVALID, reason: "a PUBLISH topic name must not contain wildcards" };
  const length = varint(body, topicEnd + (qos > 0 ? 2 : 0));
  if (length === "bad") return malformed("PUBLISH property length longer than 4 bytes");
  if (length === "short") return short;
  let at = topicEnd + (qos > 0 ? 2 : 0) + length.size;
  const end = at + length.value;
  if (body.length < end) return short;
  const seen = new Set<number>();
  while (at < end) {
    const id = body[at++]!;
    const size = PUBLISH_PROPERTIES[id];
    if (id === SUBSCRIPTION_IDENTIFIER)
      return protocolError("a client's PUBLISH must not carry a subscription identifier");
    if (size === undefined) return malformed(`property 0x${id.toString(16)} is not valid in PUBLISH`);
    if (id !== USER_PROPERTY && seen.has(id))
      return protocolError(`property 0x${id.toString(16)} is included more than once`);
    seen.add(id);
    if (typeof size === "number") at += size;
    else
      for (let strings = size === "pair" ? 2 : 1; strings > 0; strings--)
        at += at + 2 <= end ? 2 + ((body[at]! << 8) | body[at + 1]!) : 2;
    if (at > end) return malformed("PUBLISH property longer than the properties");
  }
  if (topicEnd === 2 && !seen.has(TOPIC_ALIAS))
    return protocolError("a PUBLISH with an empty topic name must carry a topic alias");
  return undefined;
}

/**
 * Checks one device connection's byte stream (device → adapter) before the MQTT parser reads it, cutting it where it
 * must end: after the device's DISCONNECT (it sends nothing more, MQTT-3.14.4-1; aedes would still handle packets
 * that came in the same read), and, on an MQTT 5.0 connection, before a PUBLISH `publishProblem` finds wrong (aedes
 * would store some of those, or close the connection without telling the device why), or one past the Receive
 * Maximum (MQTT 5.0 §3.3.4: more QoS 1/2 PUBLISHes than `receiveMaximum` not yet answered by PUBACK or PUBCOMP, which
 * the caller reports with `answered`). Pure and incremental: feed it the stream's chunks in order, split at any byte;
 * it answers how much of each to pass on.
 */
export class InboundChecker {
  private readonly framer = new PacketFramer();
  private version = 0;
  /** Packet identifiers of the QoS 1/2 PUBLISHes read and not yet answered (MQTT 5.0 connections). */
  private readonly unanswered = new Set<number>();

  constructor(private readonly receiveMaximum = RECEIVE_MAXIMUM) {}

  /** True on an MQTT 5.0 connection: its PUBACKs and PUBCOMPs are to be reported with `answered`. */
  get countsAnswers(): boolean {
    return this.version === 5;
  }

  /** The adapter wrote PUBACK or PUBCOMP for the device's PUBLISH `messageId`. */
  answered(messageId: number): void {
    this.unanswered.delete(messageId);
  }

  /** Set once the stream is cut: nothing more passes. */
  private cut = false;
  /** Why it was cut, when a packet was refused (not after a DISCONNECT). */
  problem: InboundProblem | undefined;
  private flags = 0;
  /** Body bytes of the current CONNECT or PUBLISH until its head is checked (slices of the chunks). */
  private parts: Uint8Array[] = [];
  private checked = false;
  /** Where the current packet began in the current chunk (-1: in an earlier chunk). */
  private startAt = -1;
  private passUpTo = -1;
  private readonly reader: FrameReader = {
    start: (type, chunk, at) => {
      this.flags = chunk[at]! & 0x0f;
      this.parts = [];
      this.checked = type !== CONNECT && !(type === PUBLISH && this.version === 5);
      this.startAt = at;
    },
    body: (type, chunk, from, to) => {
      if (this.checked) return;
      this.parts.push(chunk.subarray(from, to));
      this.check(type, false);
    },
    end: (type, chunk, end) => {
      if (!this.checked) this.check(type, true);
      if (this.cut) {
        this.passUpTo = this.problem ? Math.max(this.startAt, 0) : end;
        return false;
      }
      if (type === DISCONNECT) {
        this.cut = true;
        this.passUpTo = end;
        return false;
      }
      return true;
    },
  };

  /** Reads the next chunk; answers the bytes of it the parser may have (all of it until the stream is cut). */
  pass(chunk: Uint8Array): Uint8Array {
    if (this.cut) return chunk.subarray(0, 0);
    this.passUpTo = -1;
    this.startAt = -1;
    this.framer.feed(chunk, this.reader);
    if (this.cut && this.passUpTo < 0) this.passUpTo = this.problem ? Math.max(this.startAt, 0) : chunk.length;
    return this.passUpTo < 0 ? chunk : chunk.subarray(0, this.passUpTo);
  }

  private check(type: number, complete: boolean): void {
    const body = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [body];
    if (type === CONNECT) {
      // Protocol name (2-byte length, then the name), then the protocol level (MQTT 5.0 §3.1.2.2).
      if (body.length < 2) return;
      const levelAt = 2 + ((body[0]! << 8) | body[1]!);
      if (body.length <= levelAt) return;
      this.version = body[levelAt]!;
      this.checked = true;
      return;
    }
    const found = publishProblem(this.flags, body, complete);
    if (found === "short") return;
    this.checked = true;
    this.parts = [];
    const problem = found ?? this.overReceiveMaximum(body);
    if (!problem) return;
    this.problem = problem;
    this.cut = true;
  }

  /** Counts a QoS 1/2 PUBLISH (its packet identifier follows the topic); a problem when it is one too many. */
  private overReceiveMaximum(body: Uint8Array): InboundProblem | undefined {
    if ((this.flags & 0x06) === 0) return undefined;
    const at = 2 + ((body[0]! << 8) | body[1]!);
    const messageId = (body[at]! << 8) | body[at + 1]!;
    if (this.unanswered.has(messageId)) return undefined; // a resend (DUP) of one still in flight
    if (this.unanswered.size >= this.receiveMaximum)
      return {
        code: ReasonCode.RECEIVE_MAXIMUM_EXCEEDED,
        reason: `more than ${this.receiveMaximum} QoS 1/2 publishes unacknowledged`,
      };
    this.unanswered.add(messageId);
    return undefined;
  }
}
