import type { FrameReader } from "./packet-framer.js";

/** Control packet type of PUBREC (MQTT 3.1.1 §2.2.1, MQTT 5.0 §2.1.2). */
const PUBREC = 5;
const ONLY_PUBREC: ReadonlySet<number> = new Set([PUBREC]);

/** A PUBREC a device sent: the packet identifier it answers and its reason code (0 success; MQTT 5.0 only). */
export interface Pubrec {
  readonly messageId: number;
  readonly reasonCode: number;
}

/**
 * Finds the PUBREC packets in one MQTT byte stream (device → adapter), so the adapter knows when a device received a
 * QoS 2 command: aedes answers PUBREC with PUBREL by itself and, for a clean session, tells nobody. A FrameReader
 * (fed through a PacketFramer, which takes the stream's chunks in order, split at any byte) that reads only the first
 * three body bytes of a PUBREC: packet identifier, then the MQTT 5.0 reason code, 0 when absent (MQTT 5.0 §3.5.2.1).
 */
export class PubrecScanner implements FrameReader {
  /**
   * @param types the acknowledgement packet types to find: PUBREC by default; the same layout (packet identifier,
   * then an MQTT 5.0 reason code) serves PUBACK (4) and PUBCOMP (7) too.
   */
  constructor(private readonly types: ReadonlySet<number> = ONLY_PUBREC) {}

  /** The first body bytes of the packet being read. */
  private head: number[] = [];
  private found: Pubrec[] = [];

  start(): void {
    this.head = [];
  }

  body(type: number, chunk: Uint8Array, from: number, to: number): void {
    if (!this.types.has(type)) return;
    for (let k = from; k < to && this.head.length < 3; k++) this.head.push(chunk[k]!);
  }

  end(type: number): void {
    if (this.types.has(type) && this.head.length >= 2)
      this.found.push({ messageId: (this.head[0]! << 8) | this.head[1]!, reasonCode: this.head[2] ?? 0 });
  }

  /** Answers the packets found since the last call, in order. */
  take(): Pubrec[] {
    const found = this.found;
    if (found.length > 0) this.found = [];
    return found;
  }
}
