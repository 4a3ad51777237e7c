import type { Duplex } from "node:stream";
import { PubrecScanner, type Pubrec } from "./codec/pubrec-scanner.js";

/**
 * Tells `onPubrec` of every PUBREC the broker reads from one connection stream (TCP, TLS, WebSocket or in memory
 * alike), as the broker reads it: put in front of the stream's other wrappers, it sees exactly the bytes aedes
 * parses. aedes answers a PUBREC with PUBREL itself and, for a clean session, reports it nowhere (its persistence
 * is not called, nor any event); the adapter needs it to follow a QoS 2 command past that step.
 */
export function watchPubrecs(stream: Duplex, onPubrec: (pubrec: Pubrec) => void): void {
  const scanner = new PubrecScanner();
  const read = stream.read.bind(stream);
  stream.read = (size?: number): unknown => {
    const chunk: unknown = read(size);
    if (chunk instanceof Uint8Array) for (const pubrec of scanner.scan(chunk)) onPubrec(pubrec);
    return chunk;
  };
}
