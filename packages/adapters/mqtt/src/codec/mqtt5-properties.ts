import { ReasonCode } from "../reason-codes.js";

/** Why a device's packet is refused, with the reason code the standard gives for it. */
export interface InboundProblem {
  readonly code: number;
  readonly reason: string;
  /**
   * Found in the CONNECT itself: the broker never reads it, so the refusal is a CONNACK with the code (MQTT 5.0
   * §4.13.1), not a DISCONNECT.
   */
  readonly inConnect?: true;
}

/**
 * Bytes of a property's value: a fixed size, or "string" (2-byte length and that many bytes: UTF-8 string, binary
 * data) or "pair" (two strings, the User Property).
 */
type PropertySize = number | "string" | "pair";

/**
 * The properties a client's PUBLISH may carry (MQTT 5.0 §3.3.2.3), by identifier. The Subscription Identifier (0x0B)
 * goes only from server to client (MQTT-3.3.4-6).
 */
export const PUBLISH_PROPERTIES: Partial<Record<number, PropertySize>> = {
  0x01: 1, // Payload Format Indicator
  0x02: 4, // Message Expiry Interval
  0x03: "string", // Content Type
  0x08: "string", // Response Topic
  0x09: "string", // Correlation Data
  0x23: 2, // Topic Alias
  0x26: "pair", // User Property (the one that may repeat)
};

/** The Will Properties of a CONNECT (MQTT 5.0 §3.1.3.2): a PUBLISH's without Topic Alias, with Will Delay Interval. */
const WILL_PROPERTIES: Partial<Record<number, PropertySize>> = {
  0x18: 4, // Will Delay Interval
  0x01: 1,
  0x02: 4,
  0x03: "string",
  0x08: "string",
  0x09: "string",
  0x26: "pair",
};

/** A bit per single property, to find one given twice without a Set per packet. */
const SEEN_BIT: Partial<Record<number, number>> = { 0x01: 1, 0x02: 2, 0x03: 4, 0x08: 8, 0x09: 16, 0x23: 32, 0x18: 64 };
/** The bit `scanProperties` sets for a Topic Alias. */
export const TOPIC_ALIAS_BIT = 32;
const SUBSCRIPTION_IDENTIFIER = 0x0b;

export const malformed = (reason: string): InboundProblem => ({ code: ReasonCode.MALFORMED_PACKET, reason });
export const protocolError = (reason: string): InboundProblem => ({ code: ReasonCode.PROTOCOL_ERROR, reason });

/** A variable byte integer at `at`, before `end` (MQTT 5.0 §1.5.5): its value and size; "short" if `end` is first. */
export function varint(buf: Uint8Array, at: number, end: number): { value: number; size: number } | "short" | "bad" {
  let value = 0;
  for (let k = 0; k < 4; k++) {
    if (at + k >= end) return "short";
    const byte = buf[at + k]!;
    value += (byte & 0x7f) * 128 ** k;
    if (!(byte & 0x80)) return { value, size: k + 1 };
  }
  return "bad";
}

/**
 * Checks the properties in bytes [at, end) of `buf` against `allowed` (`packet` names the packet in reasons): a
 * property not allowed is a Malformed Packet (MQTT 5.0 §2.2.2.2: 0x81); a Subscription Identifier from a client or a
 * single property given twice a Protocol Error (0x82). Answers the problem, or the SEEN_BIT bits of those present.
 */
export function scanProperties(
  buf: Uint8Array,
  at: number,
  end: number,
  allowed: Partial<Record<number, PropertySize>>,
  packet: string,
): InboundProblem | number {
  let seen = 0;
  while (at < end) {
    const id = buf[at++]!;
    const size = allowed[id];
    if (id === SUBSCRIPTION_IDENTIFIER)
      return protocolError(`a client's ${packet} must not carry a subscription identifier`);
    if (size === undefined) return malformed(`property 0x${id.toString(16)} is not valid in ${packet}`);
    const bit = SEEN_BIT[id] ?? 0;
    if (seen & bit) return protocolError(`property 0x${id.toString(16)} is included more than once`);
    seen |= bit;
    if (typeof size === "number") at += size;
    else
      for (let strings = size === "pair" ? 2 : 1; strings > 0; strings--)
        at += at + 2 <= end ? 2 + ((buf[at]! << 8) | buf[at + 1]!) : 2;
    if (at > end) return malformed(`${packet} property longer than the properties`);
  }
  return seen;
}

/**
 * What is wrong with the Will Properties of an MQTT 5.0 CONNECT whose body is bytes [from, to) of `buf` and whose
 * protocol level is at `levelAt`: "short" when they are not all there yet (and `complete` is false), undefined when
 * nothing is (or the CONNECT has no will). mqtt-packet reads any property in any packet, and aedes would publish the
 * will with whatever it carried.
 */
export function willProblem(
  buf: Uint8Array,
  levelAt: number,
  to: number,
  complete: boolean,
): InboundProblem | "short" | undefined {
  const short = complete ? malformed("CONNECT shorter than its header and will properties") : "short";
  // Level, flags, keep alive (MQTT 5.0 §3.1.2), then the CONNECT's properties, then the client identifier.
  if (levelAt + 4 > to) return short;
  if ((buf[levelAt + 1]! & 0x04) === 0) return undefined;
  const props = varint(buf, levelAt + 4, to);
  if (props === "bad") return malformed("CONNECT property length longer than 4 bytes");
  if (props === "short") return short;
  const idAt = levelAt + 4 + props.size + props.value;
  if (idAt + 2 > to) return short;
  const willAt = idAt + 2 + ((buf[idAt]! << 8) | buf[idAt + 1]!);
  const will = varint(buf, willAt, to);
  if (will === "bad") return malformed("will property length longer than 4 bytes");
  if (will === "short") return short;
  const end = willAt + will.size + will.value;
  if (end > to) return short;
  const found = scanProperties(buf, willAt + will.size, end, WILL_PROPERTIES, "will");
  return typeof found === "number" ? undefined : found;
}
