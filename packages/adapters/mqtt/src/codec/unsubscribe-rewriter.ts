import mqttPacket, { type IUnsubscribePacket } from "mqtt-packet";
import { PacketFramer, type FrameReader } from "./packet-framer.js";

const EMPTY: Buffer = Buffer.alloc(0);

/** Control packet types (MQTT 3.1.1 §2.2.1, MQTT 5.0 §2.1.2) the rewriter tells apart. */
const CONNECT = 1;
const UNSUBSCRIBE = 10;

/** How the filters of one UNSUBSCRIBE change (the device's relative filter in, the broker-side filter out). */
type FilterMap = (filter: string) => string;

/**
 * Rewrites the topic filters of the UNSUBSCRIBE packets in one MQTT byte stream, so a broker that mounts every
 * SUBSCRIBE filter in a hook (aedes' authorizeSubscribe) also finds the mounted filter when the device unsubscribes:
 * aedes has no hook for UNSUBSCRIBE (moscajs/aedes#605). Pure and incremental, like PacketSizeGate: feed it the
 * stream's chunks in order, split at any byte; it follows packet boundaries with a PacketFramer (MQTT 5.0 §2.1),
 * passes every other packet through untouched as it comes, and holds an UNSUBSCRIBE (at most the size gate's limit)
 * until it is whole. An UNSUBSCRIBE is decoded and encoded again with mqtt-packet, for the protocol level of the
 * connection (its v5 properties kept).
 *
 * The mapping is known only once the device is authenticated, after CONNECT; a client may send packets before its
 * CONNACK (MQTT 3.1.1 §3.1.4), so every byte after the CONNECT is held until `release` names the mapping.
 */
export class UnsubscribeRewriter implements FrameReader {
  private readonly framer = new PacketFramer();
  /** Bytes of the UNSUBSCRIBE being collected (its fixed header included). */
  private collected: Uint8Array[] | undefined;
  /** Bytes after the CONNECT, kept until `release`. */
  private held: Buffer[] | undefined;
  private map: FilterMap | undefined;
  private protocolVersion = 4;
  /** The chunk being scanned, what of it is handed on so far, and where its bytes not yet handed on start. */
  private chunk: Buffer = EMPTY;
  private out: Uint8Array[] = [];
  private passFrom = 0;
  /** Where the CONNECT ended in the chunk, when it did in this one: what follows is held. */
  private connectEnd: number | undefined;

  /** True while bytes after CONNECT wait for `release`. */
  get holding(): boolean {
    return this.held !== undefined && this.map === undefined;
  }

  /** Bytes held so far. */
  get heldBytes(): number {
    let n = 0;
    for (const b of this.held ?? []) n += b.length;
    return n;
  }

  /** Names the filter mapping (the device is authenticated) and the connection's protocol level (3, 4 or 5). */
  release(map: FilterMap, protocolVersion: number): void {
    this.map = map;
    this.protocolVersion = protocolVersion;
  }

  /**
   * Reads the next chunk (empty: none) and answers the bytes to hand on: everything up to the end of the CONNECT,
   * then, once released, the held bytes and the chunk with each UNSUBSCRIBE rewritten. Empty while holding.
   */
  push(chunk: Uint8Array): Buffer {
    if (this.held) {
      if (!this.map) {
        if (chunk.length > 0) this.held.push(Buffer.from(chunk));
        return Buffer.alloc(0);
      }
      const held = this.held;
      this.held = undefined;
      return this.scan(Buffer.concat([...held, chunk]));
    }
    return this.scan(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
  }

  /** FrameReader: an UNSUBSCRIBE starts (once the mapping is known): what came before it is handed on. */
  start(type: number, _chunk: Uint8Array, at: number): void {
    if (type !== UNSUBSCRIBE || !this.map) return;
    this.out.push(this.chunk.subarray(this.passFrom, at));
    this.collected = [];
    this.passFrom = at;
  }

  /** FrameReader: a packet ended: an UNSUBSCRIBE is rewritten; the CONNECT ends this scan (what follows is held). */
  end(type: number, _chunk: Uint8Array, end: number): boolean {
    if (this.collected) {
      this.collected.push(this.chunk.subarray(this.passFrom, end));
      this.out.push(this.rewrite(Buffer.concat(this.collected)));
      this.collected = undefined;
      this.passFrom = end;
    } else if (type === CONNECT && !this.map) {
      this.connectEnd = end;
      return false;
    }
    return true;
  }

  private scan(chunk: Buffer): Buffer {
    this.chunk = chunk;
    this.out = [];
    this.passFrom = 0;
    this.framer.feed(chunk, this);
    const out = this.out;
    if (this.connectEnd !== undefined) {
      out.push(chunk.subarray(this.passFrom, this.connectEnd));
      this.held = this.connectEnd < chunk.length ? [Buffer.from(chunk.subarray(this.connectEnd))] : [];
      this.connectEnd = undefined;
    } else if (this.collected) {
      this.collected.push(chunk.subarray(this.passFrom));
      // A malformed length stopped the framer: whatever was collected, and everything after, passes as it came.
      if (this.framer.stopped) {
        out.push(...this.collected);
        this.collected = undefined;
      }
    } else out.push(chunk.subarray(this.passFrom));
    this.chunk = EMPTY;
    return out.length === 1 ? Buffer.from(out[0]!.buffer, out[0]!.byteOffset, out[0]!.length) : Buffer.concat(out);
  }

  /** One whole UNSUBSCRIBE, its filters mapped; one mqtt-packet cannot read passes as it is (the broker refuses it). */
  private rewrite(bytes: Buffer): Buffer {
    const packet = decodeOne(bytes, this.protocolVersion);
    if (packet?.cmd !== "unsubscribe" || !Array.isArray(packet.unsubscriptions)) return bytes;
    const map = this.map!;
    const unsubscriptions = packet.unsubscriptions.map((f) => map(f));
    return mqttPacket.generate({ ...packet, unsubscriptions }, { protocolVersion: this.protocolVersion });
  }
}

/** Decodes exactly one packet, or undefined when mqtt-packet refuses it. */
function decodeOne(bytes: Buffer, protocolVersion: number): IUnsubscribePacket | undefined {
  const parser = mqttPacket.parser({ protocolVersion });
  let packet: IUnsubscribePacket | undefined;
  let failed = false;
  parser.on("packet", (p) => (packet = p as IUnsubscribePacket));
  parser.on("error", () => (failed = true));
  parser.parse(bytes);
  return failed ? undefined : packet;
}
