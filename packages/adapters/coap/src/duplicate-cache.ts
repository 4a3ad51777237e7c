/**
 * Messages already received, by sender and message id (RFC 7252 §4.5), with what the layer answered them: a
 * retransmitted confirmable message gets that same answer again instead of being handled twice. Bounded by age
 * (EXCHANGE_LIFETIME) and count, the oldest going first. Pure apart from the clock, which every call takes.
 */
export class DuplicateCache {
  /** Oldest first. */
  private readonly entries = new Map<string, { at: number; reply: Buffer | undefined }>();

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
  get(key: string, now: number): { readonly reply: Buffer | undefined } | undefined {
    const entry = this.entries.get(key);
    return entry && now - entry.at < this.lifetimeMs ? entry : undefined;
  }

  /** Remembers message `key` and its answer (undefined: none yet, or none to repeat). */
  remember(key: string, reply: Buffer | undefined, now: number): void {
    for (const [k, e] of this.entries) {
      if (now - e.at < this.lifetimeMs && this.entries.size < this.maxEntries) break;
      this.entries.delete(k);
    }
    const entry = this.entries.get(key);
    if (entry) entry.reply = reply;
    else this.entries.set(key, { at: now, reply });
  }

  /** Forgets every message. */
  clear(): void {
    this.entries.clear();
  }
}
