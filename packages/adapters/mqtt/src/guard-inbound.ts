import type { Duplex } from "node:stream";
import { InboundChecker, type InboundProblem } from "./codec/inbound-checker.js";

/**
 * Puts an InboundChecker in front of one connection stream (TCP, TLS, WebSocket or in memory alike), innermost: the
 * broker never reads what the device sent after its DISCONNECT, nor an MQTT 5.0 PUBLISH the checker refuses, or
 * anything after it. For the latter `onProblem` runs once (the adapter then closes the connection, telling the device
 * why); the stream is not read any further.
 */
export function guardInbound(stream: Duplex, onProblem: (problem: InboundProblem) => void): void {
  const checker = new InboundChecker();
  const read = stream.read.bind(stream);
  let done = false;
  stream.read = (size?: number): unknown => {
    if (done) return null;
    const chunk: unknown = read(size);
    if (!(chunk instanceof Uint8Array)) return chunk;
    const passed = checker.pass(chunk);
    if (passed.length === chunk.length) return chunk;
    done = true;
    if (checker.problem) onProblem(checker.problem);
    return passed.length > 0 ? passed : null;
  };
}
