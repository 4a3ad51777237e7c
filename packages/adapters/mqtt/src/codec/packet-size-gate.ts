import type { FrameReader } from "./packet-framer.js";

/** Control packet type names by their 4-bit code (MQTT 3.1.1 §2.2.1), for log lines. */
const PACKET_TYPES = [
  "reserved (0)",
  "CONNECT",
  "CONNACK",
  "PUBLISH",
  "PUBACK",
  "PUBREC",
  "PUBREL",
  "PUBCOMP",
  "SUBSCRIBE",
  "SUBACK",
  "UNSUBSCRIBE",
  "UNSUBACK",
  "PINGREQ",
  "PINGRESP",
  "DISCONNECT",
  "reserved (15)",
] as const;

/** A packet whose fixed header announced more than the gate lets through. */
export interface OversizedPacket {
  /** Its control packet type, e.g. "PUBLISH". */
  readonly type: string;
  /** The remaining length its fixed header announced (variable header plus payload), bytes. */
  readonly remainingLength: number;
}

/** Largest remaining length the 1–4 byte varint can express (MQTT 3.1.1 §2.2.3). */
const MAX_VARINT = 268_435_455;

/**
 * Knows a packet larger than `maxRemainingLength` from its first 2 to 5 bytes (its fixed header), before any of its
 * body is held anywhere: a FrameReader whose `header` stops the PacketFramer it is fed through at the first such
 * packet, which it then names in `oversized`. Pure: the framer takes the stream's chunks in order, split at any byte.
 */
export class PacketSizeGate implements FrameReader {
  /** The first packet announced over the limit, once there is one. */
  oversized: OversizedPacket | undefined;

  /** @param maxRemainingLength largest remaining length accepted, bytes (0 to 268,435,455). */
  constructor(readonly maxRemainingLength: number) {
    if (!Number.isInteger(maxRemainingLength) || maxRemainingLength < 0 || maxRemainingLength > MAX_VARINT)
      throw new RangeError(`maxRemainingLength must be a whole number from 0 to ${MAX_VARINT}`);
  }

  header(type: number, remainingLength: number): boolean {
    if (remainingLength <= this.maxRemainingLength) return true;
    this.oversized = { type: PACKET_TYPES[type]!, remainingLength };
    return false;
  }
}
