import type { Duplex } from "node:stream";
import { InboundChecker, type InboundProblem } from "./codec/inbound-checker.js";
import { PacketFramer } from "./codec/packet-framer.js";
import { PacketSizeGate, type OversizedPacket } from "./codec/packet-size-gate.js";
import { PubrecScanner, type Pubrec } from "./codec/pubrec-scanner.js";

/** Control packet types of the adapter's answers that end a device's QoS 1 and QoS 2 PUBLISH flows. */
const PUBACK = 4;
const PUBCOMP = 7;
const ANSWERS: ReadonlySet<number> = new Set([PUBACK, PUBCOMP]);

/** What the guard tells the adapter about one connection's inbound stream. */
export interface InboundEvents {
  /** A packet the InboundChecker refused: nothing of it, nor after it, reaches the broker. */
  problem(problem: InboundProblem): void;
  /** A packet announced over the size limit: the read holding its header is withheld. The caller closes. */
  oversized(packet: OversizedPacket): void;
  /** A PUBREC the broker is about to read (aedes answers it with PUBREL and tells nobody). */
  pubrec(pubrec: Pubrec): void;
}

/**
 * The one reader of a connection stream's inbound bytes in front of the broker (TCP, TLS, WebSocket or in memory
 * alike), innermost: one framing of the stream serves the InboundChecker, the size gate and the PUBREC scanner.
 * - The broker never reads what the device sent after its DISCONNECT, nor an MQTT 5.0 PUBLISH the checker refuses, or
 *   anything after it; `problem` runs once and the stream is not read any further.
 * - At the first packet whose fixed header announces a remaining length over `maxRemainingLength`, the read holding
 *   it is withheld and `oversized` runs, so at most one socket read of the packet is ever held (aedes' parser would
 *   buffer the whole body).
 * The PUBACKs and PUBCOMPs aedes writes to an MQTT 5.0 device are read back from the stream's writes (aedes writes
 * Buffers and strings) for the checker's Receive Maximum count. aedes reads its connection with `stream.read()`,
 * which this wraps on the instance; the adapter tests cover it.
 */
export function guardInbound(stream: Duplex, maxRemainingLength: number, events: InboundEvents): void {
  const gate = new PacketSizeGate(maxRemainingLength);
  const pubrecs = new PubrecScanner();
  const checker = new InboundChecker(undefined, [gate, pubrecs]);
  const read = stream.read.bind(stream);
  let done = false;
  stream.read = (size?: number): unknown => {
    if (done) return null;
    const chunk: unknown = read(size);
    if (!(chunk instanceof Uint8Array)) return chunk;
    const passed = checker.pass(chunk);
    if (gate.oversized) {
      done = true;
      events.oversized(gate.oversized);
      return null;
    }
    for (const pubrec of pubrecs.take()) events.pubrec(pubrec);
    if (passed.length === chunk.length) return chunk;
    done = true;
    if (checker.problem) events.problem(checker.problem);
    return passed.length > 0 ? passed : null;
  };
  // Made at the first answer to an MQTT 5.0 device: most held connections never get one.
  let answers: { framer: PacketFramer; scanner: PubrecScanner } | undefined;
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
    if (checker.countsAnswers) {
      const bytes =
        typeof chunk === "string"
          ? Buffer.from(chunk, typeof rest[0] === "string" ? (rest[0] as BufferEncoding) : "utf8")
          : chunk;
      if (bytes instanceof Uint8Array) {
        answers ??= { framer: new PacketFramer(), scanner: new PubrecScanner(ANSWERS) };
        answers.framer.feed(bytes, answers.scanner);
        for (const ack of answers.scanner.take()) checker.answered(ack.messageId);
      }
    }
    return write(chunk, ...rest);
  }) as Duplex["write"];
}
