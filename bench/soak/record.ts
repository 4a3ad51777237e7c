/**
 * What the soak remembers while it runs, in bounded memory whatever the run's length: ack latencies as log-bucketed
 * counts per protocol per window (5 % resolution), and each load's acknowledged messages as one bit per message
 * number (`<label>-<n>` payloads, bench/device-lanes.ts).
 */

/** Bucket i holds latencies up to 0.05 ms × 1.05^i; 400 buckets reach past 10 minutes. */
const BASE_MS = 0.05;
const RATIO = 1.05;
const BUCKETS = 400;

/** Ack latencies of one protocol, a histogram per window. */
export class WindowedLatency {
  private readonly windows: Uint32Array[] = [];
  constructor(
    private readonly startedAt: number,
    private readonly windowMs: number,
  ) {}

  record(ms: number, at = performance.now()): void {
    const w = Math.floor((at - this.startedAt) / this.windowMs);
    const counts = (this.windows[w] ??= new Uint32Array(BUCKETS));
    const i = ms <= BASE_MS ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / BASE_MS) / Math.log(RATIO)));
    counts[i]!++;
  }

  /** Per window: how many, and the p-th percentile (the bucket's upper bound, ms); NaN for an empty window. */
  summary(windows: number, p = 99): { count: number; p: number }[] {
    return Array.from({ length: windows }, (_, w) => {
      const counts = this.windows[w];
      const total = counts?.reduce((a, b) => a + b, 0) ?? 0;
      if (!counts || total === 0) return { count: 0, p: NaN };
      const rank = Math.ceil((p / 100) * total);
      let seen = 0;
      for (let i = 0; i < BUCKETS; i++) {
        seen += counts[i]!;
        if (seen >= rank) return { count: total, p: BASE_MS * RATIO ** i };
      }
      return { count: total, p: NaN };
    });
  }
}

/** The acknowledged message numbers of one load, a bit each. */
export class AckLedger {
  private bits = new Uint8Array(1024);
  private highest = -1;
  count = 0;

  constructor(readonly label: string) {}

  /** The message number of a payload `<label>-<n>`, or undefined for another's. */
  numberOf(payload: string): number | undefined {
    if (!payload.startsWith(`${this.label}-`)) return undefined;
    const n = Number(payload.slice(this.label.length + 1));
    return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
  }

  ack(payload: string): void {
    const n = this.numberOf(payload);
    if (n === undefined) return;
    if (n >> 3 >= this.bits.length) {
      const grown = new Uint8Array(Math.max(this.bits.length * 2, (n >> 3) + 1));
      grown.set(this.bits);
      this.bits = grown;
    }
    if (!(this.bits[n >> 3]! & (1 << (n & 7)))) this.count++;
    this.bits[n >> 3]! |= 1 << (n & 7);
    this.highest = Math.max(this.highest, n);
  }

  /**
   * Compares with the payloads the store holds: acknowledged ones missing (lost) and payloads stored more than
   * once (each extra copy counts).
   */
  compare(stored: Iterable<string>): { lost: number; firstLost: string | undefined; duplicates: number } {
    const seen = new Uint8Array(this.highest + 1);
    let duplicates = 0;
    for (const payload of stored) {
      const n = this.numberOf(payload);
      if (n === undefined || n > this.highest) continue;
      if (seen[n]! > 0) duplicates++;
      seen[n] = Math.min(255, seen[n]! + 1);
    }
    let lost = 0;
    let firstLost: string | undefined;
    for (let n = 0; n <= this.highest; n++)
      if (this.bits[n >> 3]! & (1 << (n & 7)) && seen[n] === 0) {
        lost++;
        firstLost ??= `${this.label}-${n}`;
      }
    return { lost, firstLost, duplicates };
  }
}
