import { describe, expect, it } from "vitest";
import { Backoff, backoffStepMs } from "./backoff.js";

describe("backoffStepMs", () => {
  it("doubles the step from the first up to the largest, from retry 1 on", () => {
    expect([1, 2, 3, 4, 10].map((retry) => backoffStepMs(retry, 100, 500))).toEqual([100, 200, 400, 500, 500]);
  });

  it("stays finite for any retry count", () => {
    expect(backoffStepMs(10_000, 1, Number.MAX_SAFE_INTEGER)).toBe(2 ** 30);
    expect(backoffStepMs(0, 100, 500)).toBe(100);
  });
});

describe("Backoff", () => {
  it("doubles the step from 100 ms and stops at 5 s", () => {
    const b = new Backoff({ random: () => 1 });
    const delays = Array.from({ length: 10 }, () => b.next());
    expect(delays.slice(0, 4)).toEqual([100, 200, 400, 800]);
    expect(delays.at(-1)).toBe(5000);
  });

  it("keeps every delay between half and all of its step", () => {
    const b = new Backoff({ random: () => 0 });
    expect([b.next(), b.next(), b.next()]).toEqual([50, 100, 200]);
  });

  it("starts over after reset", () => {
    const b = new Backoff({ random: () => 1 });
    b.next();
    b.next();
    b.reset();
    expect(b.next()).toBe(100);
  });
});
