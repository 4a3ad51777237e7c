import type { Duplex } from "node:stream";
import { PacketSizeGate, type OversizedPacket } from "./codec/packet-size-gate.js";

/**
 * Puts a PacketSizeGate in front of one connection stream (TCP, TLS, WebSocket or in memory alike): every chunk the
 * broker reads passes the gate first. At the first packet whose fixed header announces a remaining length over
 * `maxRemainingLength`, `onOversized` runs, the chunk is withheld from the broker and `close` ends the connection
 * (by default: the stream is destroyed; the adapter first tells an MQTT 5.0 device why), so at most one socket read
 * of the packet is ever held (aedes' MQTT parser would otherwise buffer the whole body).
 * aedes reads its connection with `stream.read()`, which this wraps on the instance; the adapter tests cover it.
 */
export function guardPacketSizes(
  stream: Duplex,
  maxRemainingLength: number,
  onOversized: (packet: OversizedPacket) => void,
  close: () => void = () => stream.destroy(),
): void {
  const gate = new PacketSizeGate(maxRemainingLength);
  const read = stream.read.bind(stream);
  let refused = false;
  stream.read = (size?: number): unknown => {
    if (refused) return null;
    const chunk: unknown = read(size);
    if (!(chunk instanceof Uint8Array)) return chunk;
    const oversized = gate.scan(chunk);
    if (!oversized) return chunk;
    refused = true;
    onOversized(oversized);
    close();
    return null;
  };
}
