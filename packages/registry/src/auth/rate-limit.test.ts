import { describe, expect, it } from "vitest";
import { FailureLimiter } from "./rate-limit.js";

function limiter(maxFailures = 3, windowMs = 1_000, maxKeys?: number) {
  const clock = { t: 1_000_000 };
  const l = new FailureLimiter({ maxFailures, windowMs, now: () => clock.t, ...(maxKeys ? { maxKeys } : {}) });
  return { l, clock };
}

describe("FailureLimiter", () => {
  it("lets a key fail maxFailures times, then blocks it until the oldest failure leaves the window", () => {
    const { l, clock } = limiter(3, 1_000);
    for (let i = 0; i < 3; i++) {
      expect(l.blockedFor(["ip:a"])).toBe(0);
      l.fail(["ip:a"]);
      clock.t += 100;
    }
    expect(l.blockedFor(["ip:a"])).toBe(700);
    clock.t += 699;
    expect(l.blockedFor(["ip:a"])).toBe(1);
    clock.t += 1;
    expect(l.blockedFor(["ip:a"])).toBe(0);
  });

  it("blocks again when the attempt allowed after the wait fails while a recent failure is still in the window", () => {
    const { l, clock } = limiter(2, 1_000);
    l.fail(["u"]);
    clock.t += 600;
    l.fail(["u"]);
    clock.t += 400;
    expect(l.blockedFor(["u"])).toBe(0);
    l.fail(["u"]);
    expect(l.blockedFor(["u"])).toBe(600);
  });

  it("starts counting afresh once every failure left the window", () => {
    const { l, clock } = limiter(2, 1_000);
    l.fail(["u"]);
    l.fail(["u"]);
    clock.t += 1_000;
    l.fail(["u"]);
    expect(l.blockedFor(["u"])).toBe(0);
  });

  it("blocks an attempt when any of its keys is blocked, and counts keys separately", () => {
    const { l } = limiter(2);
    l.fail(["ip:a", "user:x"]);
    l.fail(["ip:b", "user:x"]);
    expect(l.blockedFor(["ip:a"])).toBe(0);
    expect(l.blockedFor(["ip:c", "user:x"])).toBeGreaterThan(0);
    expect(l.blockedFor(["ip:c", "user:y"])).toBe(0);
  });

  it("takes back a failure recorded ahead of an attempt that then succeeded", () => {
    const { l, clock } = limiter(2);
    l.fail(["ip:a"]);
    clock.t += 10;
    const at = l.fail(["ip:a", "user:x"]);
    expect(l.blockedFor(["ip:a"])).toBeGreaterThan(0);
    l.forgive(["ip:a", "user:x"], at);
    expect(l.blockedFor(["ip:a"])).toBe(0);
    l.fail(["ip:a"]);
    expect(l.blockedFor(["ip:a"])).toBeGreaterThan(0);
    expect(l.size).toBe(1);
  });

  it("forgets a key on reset", () => {
    const { l } = limiter(1);
    l.fail(["user:x"]);
    expect(l.blockedFor(["user:x"])).toBeGreaterThan(0);
    l.reset("user:x");
    expect(l.blockedFor(["user:x"])).toBe(0);
  });

  it("prunes keys whose failures left the window as new failures arrive", () => {
    const { l, clock } = limiter(3, 1_000);
    for (let i = 0; i < 100; i++) l.fail([`ip:${i}`]);
    expect(l.size).toBe(100);
    clock.t += 1_000;
    l.fail(["ip:new"]);
    expect(l.size).toBe(1);
  });

  it("never tracks more than maxKeys keys, dropping the stalest first", () => {
    const { l, clock } = limiter(1, 60_000, 10);
    for (let i = 0; i < 50; i++) {
      l.fail([`ip:${i}`]);
      clock.t += 1;
    }
    expect(l.size).toBe(10);
    expect(l.blockedFor(["ip:49"])).toBeGreaterThan(0);
    expect(l.blockedFor(["ip:0"])).toBe(0);
  });

  it("refuses a limit below one failure", () => {
    expect(() => new FailureLimiter({ maxFailures: 0, windowMs: 1 })).toThrow(RangeError);
  });
});
