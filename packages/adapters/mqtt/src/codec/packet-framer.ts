/** What a PacketFramer tells its reader about each packet of the stream; every step is optional. */
export interface FrameReader {
  /** A packet starts: its type (the fixed header's high 4 bits) is at `at` of `chunk`. */
  start?(type: number, chunk: Uint8Array, at: number): void;
  /** Its remaining length is known (the body follows); `false` stops the framer for good. */
  header?(type: number, remainingLength: number): boolean | void;
  /** Bytes [from, to) of its body arrived in `chunk`. */
  body?(type: number, chunk: Uint8Array, from: number, to: number): void;
  /** It ended at `end` (exclusive) of `chunk`; `false` ends this feed there (the rest of the chunk is not read). */
  end?(type: number, chunk: Uint8Array, end: number): boolean | void;
}

/**
 * Several FrameReaders as one, so one PacketFramer serves them all: each step goes to every reader in order; a
 * `header` or `end` of any reader that answers `false` stops (as for one reader).
 */
export class ReaderChain implements FrameReader {
  constructor(private readonly readers: readonly FrameReader[]) {}

  start(type: number, chunk: Uint8Array, at: number): void {
    for (const r of this.readers) r.start?.(type, chunk, at);
  }

  header(type: number, remainingLength: number): boolean {
    let go = true;
    for (const r of this.readers) if (r.header?.(type, remainingLength) === false) go = false;
    return go;
  }

  body(type: number, chunk: Uint8Array, from: number, to: number): void {
    for (const r of this.readers) r.body?.(type, chunk, from, to);
  }

  end(type: number, chunk: Uint8Array, end: number): boolean {
    let go = true;
    for (const r of this.readers) if (r.end?.(type, chunk, end) === false) go = false;
    return go;
  }
}

/**
 * Follows the packet boundaries of one MQTT byte stream by its fixed headers alone (MQTT 3.1.1 §2.2, MQTT 5.0 §2.1:
 * a type byte, then the remaining length as a 1–4 byte variable byte integer, then that many body bytes). The one
 * framing the adapter's stream readers share (the inbound checker with the size gate and the PUBREC scanner, the
 * UNSUBSCRIBE rewriter, the scanner of the adapter's own acknowledgements), each a FrameReader. Pure and
 * incremental: feed it the stream's chunks in order, split at any byte. A malformed length (a fifth length byte)
 * stops it for good: the MQTT parser refuses that packet and closes the connection anyway.
 */
export class PacketFramer {
  private phase: "type" | "length" | "body" = "type";
  private type = 0;
  private length = 0;
  private lengthBytes = 0;
  private bodyLeft = 0;
  /** True once the stream was malformed or a reader's `header` said so: nothing more is read. */
  stopped = false;

  /** Reads `chunk` from `from`; answers where it stopped: the chunk's length, or where a reader's `end` said so. */
  feed(chunk: Uint8Array, reader: FrameReader, from = 0): number {
    let i = from;
    while (i < chunk.length && !this.stopped) {
      if (this.phase === "type") {
        this.type = chunk[i]! >> 4;
        this.length = 0;
        this.lengthBytes = 0;
        this.phase = "length";
        reader.start?.(this.type, chunk, i);
        i++;
        continue;
      }
      if (this.phase === "length") {
        const byte = chunk[i++]!;
        this.length += (byte & 0x7f) * 128 ** this.lengthBytes++;
        if (byte & 0x80) {
          if (this.lengthBytes === 4) this.stopped = true;
          continue;
        }
        if (reader.header?.(this.type, this.length) === false) {
          this.stopped = true;
          return i;
        }
        this.bodyLeft = this.length;
        this.phase = "body";
      } else {
        const n = Math.min(this.bodyLeft, chunk.length - i);
        if (n > 0) reader.body?.(this.type, chunk, i, i + n);
        i += n;
        this.bodyLeft -= n;
      }
      if (this.bodyLeft === 0) {
        this.phase = "type";
        if (reader.end?.(this.type, chunk, i) === false) return i;
      }
    }
    return chunk.length;
  }
}
