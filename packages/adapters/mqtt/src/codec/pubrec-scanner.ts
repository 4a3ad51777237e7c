/** Control packet type of PUBREC (MQTT 3.1.1 §2.2.1, MQTT 5.0 §2.1.2). */
const PUBREC = 5;

/** A PUBREC a device sent: the packet identifier it answers and its reason code (0 success; MQTT 5.0 only). */
export interface Pubrec {
  readonly messageId: number;
  readonly reasonCode: number;
}

/**
 * Finds the PUBREC packets in one MQTT byte stream (device → adapter), so the adapter knows when a device received a
 * QoS 2 command: aedes answers PUBREC with PUBREL by itself and, for a clean session, tells nobody. Follows packet
 * boundaries by their fixed headers like PacketSizeGate, reading only the first three body bytes of a PUBREC (packet
 * identifier, then the MQTT 5.0 reason code, 0 when absent, MQTT 5.0 §3.5.2.1). Pure and incremental: feed it the
 * stream's chunks in order, split at any byte. After a malformed length it stops looking (the parser refuses it).
 */
export class PubrecScanner {
  private phase: "type" | "length" | "body" | "stopped" = "type";
  private type = 0;
  private length = 0;
  private lengthBytes = 0;
  private bodyLeft = 0;
  /** The first body bytes of the PUBREC being read. */
  private head: number[] = [];

  /** Reads the next chunk; answers the PUBRECs that ended in it, in order. */
  scan(chunk: Uint8Array): Pubrec[] {
    const found: Pubrec[] = [];
    let i = 0;
    while (i < chunk.length && this.phase !== "stopped") {
      if (this.phase === "type") {
        this.type = chunk[i++]! >> 4;
        this.length = 0;
        this.lengthBytes = 0;
        this.head = [];
        this.phase = "length";
      } else if (this.phase === "length") {
        const byte = chunk[i++]!;
        this.length += (byte & 0x7f) * 128 ** this.lengthBytes++;
        if (byte & 0x80) {
          if (this.lengthBytes === 4) this.phase = "stopped";
          continue;
        }
        this.bodyLeft = this.length;
        this.phase = "body";
      } else {
        const n = Math.min(this.bodyLeft, chunk.length - i);
        if (this.type === PUBREC) for (let k = 0; k < n && this.head.length < 3; k++) this.head.push(chunk[i + k]!);
        i += n;
        this.bodyLeft -= n;
      }
      if (this.phase === "body" && this.bodyLeft === 0) {
        this.phase = "type";
        if (this.type === PUBREC && this.head.length >= 2)
          found.push({ messageId: (this.head[0]! << 8) | this.head[1]!, reasonCode: this.head[2] ?? 0 });
      }
    }
    return found;
  }
}
