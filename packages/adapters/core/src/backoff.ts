/** Reconnect delays: exponential from `initialMs` up to `maxMs`, with jitter. */
export interface BackoffOptions {
  /** First delay, ms (default 100). */
  readonly initialMs?: number;
  /** Largest delay, ms (default 5000). */
  readonly maxMs?: number;
  /** Source of randomness in [0, 1); injectable for tests. */
  readonly random?: () => number;
}

/**
 * Exponential backoff with "equal jitter": each delay is half the exponential
 * step plus a random half, so many adapters losing the registry at once do
 * not all come back in the same millisecond.
 */
export class Backoff {
  private attempt = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly random: () => number;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 100;
    this.maxMs = options.maxMs ?? 5000;
    this.random = options.random ?? Math.random;
  }

  /** The delay before the next attempt, in ms; each call grows the step. */
  next(): number {
    const step = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return Math.round(step / 2 + (step / 2) * this.random());
  }

  /** Back to the first step, after a connection was established. */
  reset(): void {
    this.attempt = 0;
  }
}
