/** Options of a {@link FailureLimiter}. */
export interface FailureLimiterOptions {
  /** Failures allowed within the window; the next attempt is refused. At least 1. */
  maxFailures: number;
  /** Length of the sliding window, ms. */
  windowMs: number;
  /** Most keys tracked at once (memory bound); the stalest are forgotten first. Default 100 000. */
  maxKeys?: number;
  /** Clock, epoch ms (tests inject a fake one). */
  now?: () => number;
}

/**
 * Counts failures per key (a client address, a username) in memory, for one
 * process. A key with `maxFailures` failures inside the last `windowMs` is
 * blocked until the oldest of them leaves the window, so no key ever gets
 * more than `maxFailures` failures into any window. Memory stays bounded:
 * each key keeps at most `maxFailures` times, keys whose failures all left the
 * window are pruned as new failures arrive, and at most `maxKeys` are kept.
 */
export class FailureLimiter {
  /** Key → failure times, oldest first. Map order is the order of each key's latest failure. */
  private readonly failures = new Map<string, number[]>();
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(private readonly options: FailureLimiterOptions) {
    if (!(options.maxFailures >= 1)) throw new RangeError("maxFailures must be at least 1");
    this.maxKeys = options.maxKeys ?? 100_000;
    this.now = options.now ?? (() => Date.now());
  }

  /** Milliseconds until any of `keys` may try again; 0 when none is blocked. */
  blockedFor(keys: readonly string[]): number {
    const now = this.now();
    let wait = 0;
    for (const key of keys) {
      const times = this.recent(key, now);
      if (times.length >= this.options.maxFailures) wait = Math.max(wait, times[0]! + this.options.windowMs - now);
    }
    return wait;
  }

  /**
   * Records one failure against every key and returns its time. Callers may
   * record an attempt before checking it, so concurrent guesses cannot slip
   * past the limit, and `forgive` it if it succeeds.
   */
  fail(keys: readonly string[]): number {
    const now = this.now();
    for (const key of keys) {
      const times = this.recent(key, now);
      times.push(now);
      if (times.length > this.options.maxFailures) times.shift();
      this.failures.delete(key);
      this.failures.set(key, times);
    }
    this.prune(now);
    return now;
  }

  /** Takes back one failure recorded at `at` (the time `fail` returned) from each key. */
  forgive(keys: readonly string[], at: number): void {
    for (const key of keys) {
      const times = this.failures.get(key);
      const i = times?.indexOf(at) ?? -1;
      if (i >= 0) times!.splice(i, 1);
      if (times?.length === 0) this.failures.delete(key);
    }
  }

  /** Forgets a key's failures (a successful login resets its username). */
  reset(key: string): void {
    this.failures.delete(key);
  }

  /** Number of keys currently tracked. */
  get size(): number {
    return this.failures.size;
  }

  /** The key's failures still inside the window. */
  private recent(key: string, now: number): number[] {
    const times = (this.failures.get(key) ?? []).filter((t) => now - t < this.options.windowMs);
    if (times.length === 0) this.failures.delete(key);
    return times;
  }

  /** Drops keys whose latest failure left the window (they sit at the front), then the stalest beyond maxKeys. */
  private prune(now: number): void {
    for (const [key, times] of this.failures) {
      const stale = now - times[times.length - 1]! >= this.options.windowMs;
      if (!stale && this.failures.size <= this.maxKeys) break;
      this.failures.delete(key);
    }
  }
}
