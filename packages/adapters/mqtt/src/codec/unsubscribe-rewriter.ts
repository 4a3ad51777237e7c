import mqttPacket, { type IUnsubscribePacket } from "mqtt-packet";

/** Control packet types (MQTT 3.1.1 §2.2.1, MQTT 5.0 §2.1.2) the rewriter tells apart. */
const CONNECT = 1;
const UNSUBSCRIBE = 10;

/** How the filters of one UNSUBSCRIBE change (the device's relative filter in, the broker-side filter out). */
type FilterMap = (filter: string) => string;

/**
 * Rewrites the topic filters of the UNSUBSCRIBE packets in one MQTT byte stream, so a broker that mounts every
 * SUBSCRIBE filter in a hook (aedes' authorizeSubscribe) also finds the mounted filter when the device unsubscribes:
 * aedes has no hook for UNSUBSCRIBE (moscajs/aedes#605). Pure and incremental, like PacketSizeGate: feed it the
 * stream's chunks in order, split at any byte; it follows packet boundaries by their fixed headers (MQTT 5.0 §2.1),
 * passes every other packet through untouched as it comes, and holds an UNSUBSCRIBE (at most the size gate's limit)
 * until it is whole. An UNSUBSCRIBE is decoded and encoded again with mqtt-packet, for the protocol level of the
 * connection (its v5 properties kept).
 *
 * The mapping is known only once the device is authenticated, after CONNECT; a client may send packets before its
 * CONNACK (MQTT 3.1.1 §3.1.4), so every byte after the CONNECT is held until `release` names the mapping.
 */
export class UnsubscribeRewriter {
  private phase: "type" | "length" | "body" | "off" = "type";
  private type = 0;
  private length = 0;
  private lengthBytes = 0;
  private bodyLeft = 0;
  /** Bytes of the UNSUBSCRIBE being collected (its fixed header included). */
  private collected: Buffer[] | undefined;
  /** Bytes after the CONNECT, kept until `release`. */
  private held: Buffer[] | undefined;
  private map: FilterMap | undefined;
  private protocolVersion = 4;

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

  private scan(chunk: Buffer): Buffer {
    const out: Buffer[] = [];
    let passFrom = 0;
    let i = 0;
    while (i < chunk.length) {
      if (this.phase === "off") break;
      if (this.phase === "type") {
        this.type = chunk[i]! >> 4;
        this.length = 0;
        this.lengthBytes = 0;
        this.phase = "length";
        if (this.type === UNSUBSCRIBE && this.map) {
          out.push(chunk.subarray(passFrom, i));
          this.collected = [];
          passFrom = i;
        }
        i++;
      } else if (this.phase === "length") {
        const byte = chunk[i++]!;
        this.length += (byte & 0x7f) * 128 ** this.lengthBytes++;
        if (byte & 0x80) {
          // A fifth length byte is malformed: the broker's parser refuses it; stop looking.
          if (this.lengthBytes === 4) this.stop();
          continue;
        }
        this.bodyLeft = this.length;
        this.phase = "body";
      } else {
        const n = Math.min(this.bodyLeft, chunk.length - i);
        i += n;
        this.bodyLeft -= n;
      }
      if (this.phase === "body" && this.bodyLeft === 0) {
        this.phase = "type";
        if (this.collected) {
          this.collected.push(chunk.subarray(passFrom, i));
          out.push(this.rewrite(Buffer.concat(this.collected)));
          this.collected = undefined;
          passFrom = i;
        } else if (this.type === CONNECT && !this.map) {
          out.push(chunk.subarray(passFrom, i));
          this.held = i < chunk.length ? [Buffer.from(chunk.subarray(i))] : [];
          return Buffer.concat(out);
        }
      }
    }
    if (this.collected) {
      this.collected.push(chunk.subarray(passFrom));
      if (this.phase === "off") {
        out.push(...this.collected);
        this.collected = undefined;
      }
    } else out.push(chunk.subarray(passFrom));
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  }

  /** Stops rewriting: whatever was collected, and everything after, passes as it came. */
  private stop(): void {
    this.phase = "off";
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
