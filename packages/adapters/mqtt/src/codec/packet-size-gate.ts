import { PacketFramer, type FrameReader } from "./packet-framer.js";

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
 * Knows a packet larger than `maxRemainingLength` from its first 2 to 5 bytes (its fixed header, read by a
 * PacketFramer), before any of its body is held anywhere. Pure and incremental: feed it the stream's chunks in order,
 * split at any byte. After the first oversized packet it is done; after a malformed length it stops looking, as the
 * MQTT parser refuses it anyway.
 */
export class PacketSizeGate {
  private readonly framer = new PacketFramer();
  private oversized: OversizedPacket | undefined;
  private readonly reader: FrameReader = {
    header: (type, remainingLength) => {
      if (remainingLength <= this.maxRemainingLength) return true;
      this.oversized = { type: PACKET_TYPES[type]!, remainingLength };
      return false;
    },
  };

  /** @param maxRemainingLength largest remaining length accepted, bytes (0 to 268,435,455). */
  constructor(readonly maxRemainingLength: number) {
    if (!Number.isInteger(maxRemainingLength) || maxRemainingLength < 0 || maxRemainingLength > MAX_VARINT)
      throw new RangeError(`maxRemainingLength must be a whole number from 0 to ${MAX_VARINT}`);
  }

  /** Reads the next chunk of the stream; answers the first packet announced over the limit, once. */
  scan(chunk: Uint8Array): OversizedPacket | undefined {
    if (this.framer.stopped) return undefined;
    this.framer.feed(chunk, this.reader);
    return this.oversized;
  }
}
