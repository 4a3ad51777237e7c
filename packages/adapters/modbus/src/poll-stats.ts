/** Most lateness samples kept; older ones are overwritten (a ring), so memory stays bounded. */
const LATENESS_SAMPLES = 10_000;

/** A snapshot of the counters, for logs and the benchmark. */
export interface PollCounters {
  /** Poll cycles run (one per unit per interval). */
  readonly polls: number;
  /** Read requests sent (a request with retries counts once). */
  readonly requests: number;
  /** Registers (or bits) those reads returned. */
  readonly registersRead: number;
  /** Read requests that failed: exception, timeout, link down, garbled answer. */
  readonly errors: number;
  /** Cycles skipped because the previous ones ran a whole interval late. */
  readonly missedCycles: number;
}

/**
 * Counters of every poller of an adapter, and how late poll cycles started (ms after their scheduled time, the
 * measure of whether the links keep up with the configured intervals).
 */
export class PollStats implements PollCounters {
  polls = 0;
  requests = 0;
  registersRead = 0;
  errors = 0;
  missedCycles = 0;
  private readonly samples = new Float64Array(LATENESS_SAMPLES);
  private recorded = 0;

  /** Records how late a cycle started, ms. */
  lateness(ms: number): void {
    this.samples[this.recorded % LATENESS_SAMPLES] = Math.max(0, ms);
    this.recorded++;
  }

  /** The `p`-th percentile (0..100) of the kept lateness samples, ms; 0 before any cycle. */
  latenessPercentile(p: number): number {
    const n = Math.min(this.recorded, LATENESS_SAMPLES);
    if (n === 0) return 0;
    const sorted = this.samples.slice(0, n).sort();
    return sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))]!;
  }

  /** The counters now, as a plain object. */
  snapshot(): PollCounters {
    const { polls, requests, registersRead, errors, missedCycles } = this;
    return { polls, requests, registersRead, errors, missedCycles };
  }

  /** Forgets the lateness samples (counters keep counting), to measure a new period. */
  resetLateness(): void {
    this.recorded = 0;
  }
}
