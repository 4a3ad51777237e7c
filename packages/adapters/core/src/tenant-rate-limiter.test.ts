import { describe, expect, it } from "vitest";
import { TenantRateLimiter, TokenBucket } from "./tenant-rate-limiter.js";

describe("TokenBucket", () => {
  it("lets a full burst through at once, then refuses until tokens flow back at the rate", () => {
    const b = new TokenBucket(10, 10, 0);
    const burst = Array.from({ length: 12 }, () => b.take(0));
    expect(burst.filter(Boolean)).toHaveLength(10);
    expect(b.take(50)).toBe(false); // half a token after 50 ms at 10/s
    expect(b.take(100)).toBe(true); // one token after 100 ms
    expect(b.take(100)).toBe(false);
  });

  it("never holds more than its capacity however long it stays idle", () => {
    const b = new TokenBucket(5, 5, 0);
    const taken = Array.from({ length: 20 }, () => b.take(3_600_000)).filter(Boolean);
    expect(taken).toHaveLength(5);
  });

  it("admits about rate × seconds over a long run of steady over-rate sending", () => {
    const b = new TokenBucket(100, 100, 0);
    let ok = 0;
    for (let t = 0; t <= 10_000; t += 2) if (b.take(t)) ok++; // 500 attempts/s for 10 s
    expect(ok).toBeGreaterThanOrEqual(1_000);
    expect(ok).toBeLessThanOrEqual(1_101);
  });
});

describe("TenantRateLimiter", () => {
  it("limits only tenants with a rate, each with its own bucket", () => {
    let now = 0;
    const limiter = new TenantRateLimiter(undefined, () => now);
    limiter.setRate("a", 2);
    expect([limiter.take("a"), limiter.take("a"), limiter.take("a")]).toEqual([true, true, false]);
    expect(Array.from({ length: 100 }, () => limiter.take("b")).every(Boolean)).toBe(true);
    now = 500;
    expect(limiter.take("a")).toBe(true);
  });

  it("removes a limit set to 0 and applies a changed rate at once", () => {
    const now = 0;
    const limiter = new TenantRateLimiter(undefined, () => now);
    limiter.setRate("a", 1);
    limiter.take("a");
    expect(limiter.take("a")).toBe(false);
    limiter.setRate("a", 0);
    expect(limiter.take("a")).toBe(true);
    expect(limiter.rateOf("a")).toBe(0);
    limiter.setRate("a", 3);
    expect([1, 2, 3, 4].map(() => limiter.take("a"))).toEqual([true, true, true, false]);
  });

  it("keeps the bucket's level when the same rate is set again (each new session repeats it)", () => {
    const limiter = new TenantRateLimiter(undefined, () => 0);
    limiter.setRate("a", 1);
    limiter.take("a");
    limiter.setRate("a", 1);
    expect(limiter.take("a")).toBe(false);
  });

  it("reports refusals once at first and then at most every 10 s with their count", () => {
    let now = 0;
    const reports: Array<[string, number, number]> = [];
    const limiter = new TenantRateLimiter(
      (t, n, r) => reports.push([t, n, r]),
      () => now,
    );
    limiter.setRate("a", 1);
    limiter.take("a");
    for (let i = 0; i < 5; i++) limiter.take("a");
    expect(reports).toEqual([["a", 1, 1]]);
    now = 10_000; // 1 token back (capacity 1): 1 passes, the next refusal is the 5th since the first report
    for (let i = 0; i < 4; i++) limiter.take("a");
    expect(reports).toEqual([
      ["a", 1, 1],
      ["a", 5, 1],
    ]);
  });
});
