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
 * Follows the packet boundaries of one MQTT byte stream by decoding nothing but each packet's fixed header (MQTT
 * 3.1.1 §2.2: a type byte, then the remaining length as a 1–4 byte varint) and skipping its body, so a packet
 * larger than `maxRemainingLength` is known from its first 2 to 5 bytes, before any of its body is held anywhere.
 * Pure and incremental: feed it the stream's chunks in order, split at any byte. After the first oversized packet
 * it is done; after a malformed length (a fifth varint byte) it stops looking, as the MQTT parser refuses it anyway.
 */
export class PacketSizeGate {
  private phase: "type" | "length" | "body" | "stopped" = "type";
  private type = 0;
  private length = 0;
  private lengthBytes = 0;
  private bodyLeft = 0;

  /** @param maxRemainingLength largest remaining length accepted, bytes (0 to 268,435,455). */
  constructor(readonly maxRemainingLength: number) {
    if (!Number.isInteger(maxRemainingLength) || maxRemainingLength < 0 || maxRemainingLength > MAX_VARINT)
      throw new RangeError(`maxRemainingLength must be a whole number from 0 to ${MAX_VARINT}`);
  }

  /** Reads the next chunk of the stream; answers the first packet announced over the limit, once. */
  scan(chunk: Uint8Array): OversizedPacket | undefined {
    let i = 0;
    while (i < chunk.length) {
      switch (this.phase) {
        case "stopped":
          return undefined;
        case "type":
          this.type = chunk[i++]! >> 4;
          this.length = 0;
          this.lengthBytes = 0;
          this.phase = "length";
          break;
        case "length": {
          const byte = chunk[i++]!;
          this.length += (byte & 0x7f) * 128 ** this.lengthBytes++;
          if (byte & 0x80) {
            if (this.lengthBytes === 4) this.phase = "stopped";
            break;
          }
          if (this.length > this.maxRemainingLength) {
            this.phase = "stopped";
            return { type: PACKET_TYPES[this.type]!, remainingLength: this.length };
          }
          this.bodyLeft = this.length;
          this.phase = this.bodyLeft > 0 ? "body" : "type";
          break;
        }
        case "body": {
          const n = Math.min(this.bodyLeft, chunk.length - i);
          i += n;
          this.bodyLeft -= n;
          if (this.bodyLeft === 0) this.phase = "type";
          break;
        }
      }
    }
    return undefined;
  }
}
