/**
 * A token bucket: `ratePerSecond` tokens flow in continuously, at most `capacity` are kept (the burst a quiet
 * sender may spend at once). Times are milliseconds from any monotonic clock (performance.now()).
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly ratePerSecond: number,
    readonly capacity: number,
    now: number,
  ) {
    this.tokens = capacity;
    this.last = now;
  }

  /** Takes one token if there is one; false means the sender is over its rate now. */
  take(now: number): boolean {
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.capacity, this.tokens + (elapsed * this.ratePerSecond) / 1000);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** How often the refusals of one over-rate tenant are reported (one log line, not one per message), ms. */
const REPORT_EVERY_MS = 10_000;

/**
 * The uplink rate limits of an adapter process, one token bucket per tenant (its `maxUplinkRate`, messages per
 * second, with one second's worth as burst). Rates come from the registry with each session and from its pushes
 * when the service administrator changes them; checking one costs no registry call. Tenants without a rate (0) are
 * not limited. The limit is per adapter process: N adapters let a tenant through at up to N times its rate.
 */
export class TenantRateLimiter {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly refused = new Map<string, { count: number; since: number }>();

  /**
   * @param onRefused called at most every 10 s per tenant with how many of its uplinks were refused since the last
   *   call (for one warning line).
   * @param clock monotonic ms (tests pass their own).
   */
  constructor(
    private readonly onRefused: (tenantId: string, refused: number, ratePerSecond: number) => void = () => {},
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Sets a tenant's rate (messages per second; 0 removes the limit). An unchanged rate keeps the bucket's level. */
  setRate(tenantId: string, ratePerSecond: number): void {
    if (!(ratePerSecond > 0)) {
      this.buckets.delete(tenantId);
      this.refused.delete(tenantId);
      return;
    }
    if (this.buckets.get(tenantId)?.ratePerSecond === ratePerSecond) return;
    this.buckets.set(tenantId, new TokenBucket(ratePerSecond, Math.max(1, ratePerSecond), this.clock()));
  }

  /** The tenant's rate, messages per second (0 = unlimited). */
  rateOf(tenantId: string): number {
    return this.buckets.get(tenantId)?.ratePerSecond ?? 0;
  }

  /** True when one more uplink of the tenant may go now (and counts it); false means refuse it. */
  take(tenantId: string): boolean {
    const bucket = this.buckets.get(tenantId);
    if (!bucket) return true;
    const now = this.clock();
    if (bucket.take(now)) return true;
    const r = this.refused.get(tenantId);
    if (!r) {
      this.refused.set(tenantId, { count: 0, since: now });
      this.onRefused(tenantId, 1, bucket.ratePerSecond);
    } else {
      r.count++;
      if (now - r.since >= REPORT_EVERY_MS) {
        this.onRefused(tenantId, r.count, bucket.ratePerSecond);
        r.count = 0;
        r.since = now;
      }
    }
    return false;
  }
}
