// The queue alone, not the adapter core: the message layer does not depend on the registry client.
import { Fifo } from "@iot/adapter-core/fifo";
/** A remembered message: when it came, and what the layer answered it (undefined: no answer yet, or none to repeat). */
export interface Remembered {
  readonly at: number;
  reply: Buffer | undefined;
}

interface Entry extends Remembered {
  readonly key: string;
}

/**
 * Messages already received, by sender and message id (RFC 7252 §4.5), with what the layer answered them: a
 * retransmitted confirmable message gets that same answer again instead of being handled twice. Bounded by age
 * (EXCHANGE_LIFETIME) and count, the oldest going first. Pure apart from the clock, which every call takes.
 *
 * The oldest are found in a queue of their own, never by iterating the Map: V8 keeps a deleted Map entry as a hole
 * until the table is rebuilt, and every iteration steps over the holes one by one, so taking the oldest from a full
 * Map of 50,000 cost 44–60 µs a message once 100,000 had come, 4 µs now (docs/performance.md, "Costs that grow with
 * the fleet").
 */
export class DuplicateCache {
  private readonly entries = new Map<string, Entry>();
  /** The entries, oldest first (the one place they are forgotten, so the two hold the same). */
  private readonly order = new Fifo<Entry>();

  /**
   * @param lifetimeMs how long a message is remembered, ms (RFC 7252 EXCHANGE_LIFETIME is 247 s)
   * @param maxEntries most messages remembered; past it the oldest are forgotten early
   */
  constructor(
    private readonly lifetimeMs: number,
    private readonly maxEntries: number,
  ) {}

  /** Messages remembered. */
  get size(): number {
    return this.entries.size;
  }

  /** The message `key` if seen within the lifetime: `reply` is its answer, undefined while it is being made. */
  get(key: string, now: number): Remembered | undefined {
    const entry = this.entries.get(key);
    return entry && now - entry.at < this.lifetimeMs ? entry : undefined;
  }

  /**
   * Remembers message `key` and its answer (undefined: none yet, or none to repeat); a key remembered already keeps
   * its time and takes the answer. Answers the entry: its `reply` may be set later, when the answer is made.
   */
  remember(key: string, reply: Buffer | undefined, now: number): Remembered {
    this.forgetOld(now);
    const known = this.entries.get(key);
    if (known) {
      known.reply = reply;
      return known;
    }
    const entry: Entry = { key, at: now, reply };
    this.entries.set(key, entry);
    this.order.push(entry);
    return entry;
  }

  /** Forgets every message. */
  clear(): void {
    this.entries.clear();
    this.order.clear();
  }

  /** Forgets the expired, and the oldest while at maxEntries (room for one more). */
  private forgetOld(now: number): void {
    for (let oldest = this.order.peek(); oldest; oldest = this.order.peek()) {
      if (now - oldest.at < this.lifetimeMs && this.entries.size < this.maxEntries) break;
      this.entries.delete(oldest.key);
      this.order.shift();
    }
  }
}
