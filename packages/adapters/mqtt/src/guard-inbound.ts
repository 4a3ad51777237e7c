import type { Duplex } from "node:stream";
import { InboundChecker, type InboundProblem } from "./codec/inbound-checker.js";
import { PubrecScanner } from "./codec/pubrec-scanner.js";

/** Control packet types of the adapter's answers that end a device's QoS 1 and QoS 2 PUBLISH flows. */
const PUBACK = 4;
const PUBCOMP = 7;

/**
 * Puts an InboundChecker in front of one connection stream (TCP, TLS, WebSocket or in memory alike), innermost: the
 * broker never reads what the device sent after its DISCONNECT, nor an MQTT 5.0 PUBLISH the checker refuses, or
 * anything after it. For the latter `onProblem` runs once (the adapter then closes the connection, telling the device
 * why); the stream is not read any further. The PUBACKs and PUBCOMPs aedes writes to an MQTT 5.0 device are read back
 * from the stream's writes (aedes writes Buffers and strings) for the checker's Receive Maximum count.
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
  const answers = new PubrecScanner(new Set([PUBACK, PUBCOMP]));
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
    if (checker.countsAnswers) {
      const bytes =
        typeof chunk === "string"
          ? Buffer.from(chunk, typeof rest[0] === "string" ? (rest[0] as BufferEncoding) : "utf8")
          : chunk;
      if (bytes instanceof Uint8Array) for (const ack of answers.scan(bytes)) checker.answered(ack.messageId);
    }
    return write(chunk, ...rest);
  }) as Duplex["write"];
}
