import type { DecodedResponse } from "./messages.js";

/** How a confirmable message ended: ACKed (with the response it piggybacks, if any), RST, or never answered. */
export type Settlement =
  | { readonly kind: "ack"; readonly response?: DecodedResponse }
  | { readonly kind: "reset" }
  | { readonly kind: "timeout" };

/** Timing of retransmission (RFC 7252 §4.8). */
export interface RetransmitterOptions {
  /** ACK_TIMEOUT, ms (RFC default 2000). */
  readonly ackTimeoutMs: number;
  /** ACK_RANDOM_FACTOR (RFC default 1.5): the first timeout is drawn from ACK_TIMEOUT × [1, factor). */
  readonly ackRandomFactor: number;
  /** MAX_RETRANSMIT (RFC default 4). */
  readonly maxRetransmit: number;
}

interface Waiting {
  timer: NodeJS.Timeout;
  readonly settle: (s: Settlement) => void;
}

/**
 * Sends confirmable messages until the peer ACKs or RSTs them (RFC 7252 §4.2): the first timeout is random between
 * ACK_TIMEOUT and ACK_TIMEOUT × ACK_RANDOM_FACTOR, doubled after each of MAX_RETRANSMIT retransmissions; after
 * the last one's timeout the message has timed out (31 × ACK_TIMEOUT × factor at most: 93 s by default). Keys are the
 * caller's (peer and message id), so an ACK from another peer cannot settle a message.
 */
export class Retransmitter {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly options: RetransmitterOptions) {}

  /** Confirmable messages not yet ACKed, RST or timed out. */
  get size(): number {
    return this.waiting.size;
  }

  /** Transmits `datagram` now and again until `settle` is called once with how it ended. */
  start(key: string, datagram: Buffer, transmit: (d: Buffer) => void, settle: (s: Settlement) => void): void {
    this.stop(key);
    const { ackTimeoutMs, ackRandomFactor, maxRetransmit } = this.options;
    let timeout = ackTimeoutMs * (1 + Math.random() * (ackRandomFactor - 1));
    let retransmissions = 0;
    const tick = () => {
      if (retransmissions === maxRetransmit) {
        this.waiting.delete(key);
        settle({ kind: "timeout" });
        return;
      }
      retransmissions++;
      transmit(datagram);
      timeout *= 2;
      entry.timer = setTimeout(tick, timeout).unref();
    };
    const entry: Waiting = { timer: setTimeout(tick, timeout).unref(), settle };
    this.waiting.set(key, entry);
    transmit(datagram);
  }

  /** An ACK or RST of message `key`: stops its retransmission and settles it; false when nothing waited for it. */
  settle(key: string, s: Exclude<Settlement, { kind: "timeout" }>): boolean {
    const entry = this.waiting.get(key);
    if (!entry) return false;
    this.stop(key);
    entry.settle(s);
    return true;
  }

  /** Stops retransmitting message `key` without settling it (its separate response came: RFC 7252 §5.2.2). */
  stop(key: string): void {
    const entry = this.waiting.get(key);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.waiting.delete(key);
  }

  /** Stops every retransmission, settling each message still waiting as timed out (the layer is closing). */
  clear(): void {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const entry of waiting) {
      clearTimeout(entry.timer);
      entry.settle({ kind: "timeout" });
    }
  }
}
