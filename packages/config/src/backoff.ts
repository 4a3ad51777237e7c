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
 * The step before retry number `retry` (1 = the first retry), ms: `initialMs` · 2^(retry-1), at most `maxMs`.
 * Callers that must know a wait ahead (a webhook's lease outlasting its retry) use it without jitter.
 */
export function backoffStepMs(retry: number, initialMs: number, maxMs: number): number {
  return Math.min(maxMs, initialMs * 2 ** Math.min(30, Math.max(0, retry - 1)));
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
    this.attempt = Math.min(this.attempt + 1, 31);
    const step = backoffStepMs(this.attempt, this.initialMs, this.maxMs);
    return Math.round(step / 2 + (step / 2) * this.random());
  }

  /** Back to the first step, after a connection was established. */
  reset(): void {
    this.attempt = 0;
  }
}
