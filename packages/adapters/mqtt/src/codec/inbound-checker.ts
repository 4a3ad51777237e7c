import { RECEIVE_MAXIMUM, ReasonCode } from "../reason-codes.js";
import {
  PUBLISH_PROPERTIES,
  TOPIC_ALIAS_BIT,
  malformed,
  protocolError,
  scanProperties,
  varint,
  willProblem,
  type InboundProblem,
} from "./mqtt5-properties.js";
import { PacketFramer, ReaderChain, type FrameReader } from "./packet-framer.js";

export type { InboundProblem } from "./mqtt5-properties.js";

/** Control packet types (MQTT 5.0 §2.1.2). */
const CONNECT = 1;
const PUBLISH = 3;
const DISCONNECT = 14;

/**
 * What is wrong with an MQTT 5.0 PUBLISH, from its fixed header flags and the start of its body, bytes [from, to) of
 * `buf` (they may hold the whole packet or more): "short" when its topic and properties are not all there yet (and
 * `complete` is false), undefined when nothing is. Checks what aedes would take as given or only close the connection
 * for: QoS 3, a wildcard or, without a Topic Alias, empty topic name, a property not valid in PUBLISH or the same
 * single property twice.
 */
export function publishProblem(
  flags: number,
  buf: Uint8Array,
  complete: boolean,
  from = 0,
  to = buf.length,
): InboundProblem | "short" | undefined {
  const short = complete ? malformed("PUBLISH shorter than its topic and properties") : "short";
  const qos = (flags >> 1) & 3;
  if (qos === 3) return malformed("PUBLISH with QoS 3");
  if (to - from < 2) return short;
  const topicEnd = from + 2 + ((buf[from]! << 8) | buf[from + 1]!);
  if (to < topicEnd) return short;
  for (let k = from + 2; k < topicEnd; k++)
    if (buf[k] === 0x23 || buf[k] === 0x2b)
      return { code: ReasonCode.TOPIC_NAME_INVALID, reason: "a PUBLISH topic name must not contain wildcards" };
  const lengthAt = topicEnd + (qos > 0 ? 2 : 0);
  const length = varint(buf, lengthAt, to);
  if (length === "bad") return malformed("PUBLISH property length longer than 4 bytes");
  if (length === "short") return short;
  const at = lengthAt + length.size;
  const end = at + length.value;
  if (to < end) return short;
  const seen = scanProperties(buf, at, end, PUBLISH_PROPERTIES, "PUBLISH");
  if (typeof seen !== "number") return seen;
  if (topicEnd === from + 2 && !(seen & TOPIC_ALIAS_BIT))
    return protocolError("a PUBLISH with an empty topic name must carry a topic alias");
  return undefined;
}

/**
 * Checks one device connection's byte stream (device → adapter) before the MQTT parser reads it, cutting it where it
 * must end: after the device's DISCONNECT (it sends nothing more, MQTT-3.14.4-1; aedes would still handle packets
 * that came in the same read), and, on an MQTT 5.0 connection, before a CONNECT whose will properties `willProblem`
 * finds wrong, a PUBLISH `publishProblem` finds wrong (aedes would store some of those, or close the connection
 * without telling the device why), or one past the Receive
 * Maximum (MQTT 5.0 §3.3.4: more QoS 1/2 PUBLISHes than `receiveMaximum` not yet answered by PUBACK or PUBCOMP, which
 * the caller reports with `answered`). Pure and incremental: feed it the stream's chunks in order, split at any byte;
 * it answers how much of each to pass on.
 */
export class InboundChecker {
  private readonly framer = new PacketFramer();
  private version = 0;
  /**
   * Packet identifiers of the QoS 1/2 PUBLISHes read and not yet answered (MQTT 5.0 connections); made at the first
   * such PUBLISH, as most held connections never send one.
   */
  private unanswered: Set<number> | undefined;

  /** The checker's own reader, then its companions: one framing of the stream for them all. */
  private readonly readers: FrameReader;

  /**
   * @param companions other readers of the same stream (the size gate, the PUBREC scanner), fed through the
   * checker's framer with the bytes it reads, up to where it cuts.
   */
  constructor(
    private readonly receiveMaximum = RECEIVE_MAXIMUM,
    companions: readonly FrameReader[] = [],
  ) {
    this.readers = companions.length > 0 ? new ReaderChain([this.reader, ...companions]) : this.reader;
  }

  /** True on an MQTT 5.0 connection: its PUBACKs and PUBCOMPs are to be reported with `answered`. */
  get countsAnswers(): boolean {
    return this.version === 5;
  }

  /** The adapter wrote PUBACK or PUBCOMP for the device's PUBLISH `messageId`. */
  answered(messageId: number): void {
    this.unanswered?.delete(messageId);
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
      if (this.parts.length > 0) this.parts = [];
      this.checked = type !== CONNECT && !(type === PUBLISH && this.version === 5);
      this.startAt = at;
    },
    body: (type, chunk, from, to) => {
      if (this.checked) return;
      // Mostly the head is all in one chunk: checked where it lies, nothing copied.
      if (this.parts.length === 0 && this.check(type, chunk, from, to, false)) return;
      this.parts.push(chunk.subarray(from, to));
      if (this.parts.length > 1) this.checkParts(type, false);
    },
    end: (type, chunk, end) => {
      if (!this.checked) this.checkParts(type, true);
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
    this.framer.feed(chunk, this.readers);
    if (this.cut && this.passUpTo < 0) this.passUpTo = this.problem ? Math.max(this.startAt, 0) : chunk.length;
    return this.passUpTo < 0 ? chunk : chunk.subarray(0, this.passUpTo);
  }

  /** Checks the parts gathered so far, joined. */
  private checkParts(type: number, complete: boolean): void {
    const body = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [body];
    this.check(type, body, 0, body.length, complete);
  }

  /** Checks the head in bytes [from, to) of `buf`; answers whether it is decided (false: more bytes are needed). */
  private check(type: number, buf: Uint8Array, from: number, to: number, complete: boolean): boolean {
    if (type === CONNECT) {
      // Protocol name (2-byte length, then the name), then the protocol level (MQTT 5.0 §3.1.2.2).
      const levelAt = to - from < 2 ? to : from + 2 + ((buf[from]! << 8) | buf[from + 1]!);
      if (levelAt >= to) return (this.checked = complete);
      this.version = buf[levelAt]!;
      if (this.version !== 5) return (this.checked = true);
      const found = willProblem(buf, levelAt, to, complete);
      if (found === "short") return false;
      this.checked = true;
      this.parts = [];
      if (found) {
        this.problem = { ...found, inConnect: true };
        this.cut = true;
      }
      return true;
    }
    const found = publishProblem(this.flags, buf, complete, from, to);
    if (found === "short") return false;
    this.checked = true;
    this.parts = [];
    const problem = found ?? this.overReceiveMaximum(buf, from);
    if (!problem) return true;
    this.problem = problem;
    this.cut = true;
    return true;
  }

  /** Counts a QoS 1/2 PUBLISH (its packet identifier follows the topic); a problem when it is one too many. */
  private overReceiveMaximum(buf: Uint8Array, from: number): InboundProblem | undefined {
    if ((this.flags & 0x06) === 0) return undefined;
    const at = from + 2 + ((buf[from]! << 8) | buf[from + 1]!);
    const messageId = (buf[at]! << 8) | buf[at + 1]!;
    const unanswered = (this.unanswered ??= new Set());
    if (unanswered.has(messageId)) return undefined; // a resend (DUP) of one still in flight
    if (unanswered.size >= this.receiveMaximum)
      return {
        code: ReasonCode.RECEIVE_MAXIMUM_EXCEEDED,
        reason: `more than ${this.receiveMaximum} QoS 1/2 publishes unacknowledged`,
      };
    unanswered.add(messageId);
    return undefined;
  }
}
