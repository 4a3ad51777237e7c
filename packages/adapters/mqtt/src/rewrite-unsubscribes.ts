import type { Duplex } from "node:stream";
import { UnsubscribeRewriter } from "./codec/unsubscribe-rewriter.js";

/**
 * Puts an UnsubscribeRewriter in front of one connection stream (TCP, TLS, WebSocket or in memory alike), outside its
 * size gate: the broker reads the rewritten bytes. While the rewriter holds the bytes after CONNECT (the device is
 * not yet authenticated) a read answers nothing; the stream is still read into the rewriter, up to `maxHeldBytes`
 * (then the socket's backpressure holds the device), so a device that hangs up while it waits is noticed: aedes does
 * not read a connection it paused for authentication. aedes reads again when it resumes the connection after
 * authentication. Answers the rewriter, for `release` once the session is known.
 */
export function rewriteUnsubscribes(stream: Duplex, maxHeldBytes: number): UnsubscribeRewriter {
  const rewriter = new UnsubscribeRewriter();
  const read = stream.read.bind(stream);
  const drain = () => {
    while (rewriter.holding && rewriter.heldBytes < maxHeldBytes) {
      const chunk: unknown = read();
      if (!(chunk instanceof Uint8Array)) return;
      rewriter.push(chunk);
    }
  };
  stream.on("readable", drain);
  stream.read = (size?: number): unknown => {
    if (rewriter.holding) {
      drain();
      return null;
    }
    const chunk: unknown = read(size);
    if (chunk !== null && !(chunk instanceof Uint8Array)) return chunk;
    const out = rewriter.push(chunk ?? EMPTY);
    return out.length > 0 ? out : null;
  };
  return rewriter;
}

const EMPTY = new Uint8Array(0);
