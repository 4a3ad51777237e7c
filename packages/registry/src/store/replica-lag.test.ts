import { describe, expect, it } from "vitest";
import { PrimaryPositions, parseLsn } from "./replica-lag.js";

describe("parseLsn", () => {
  it("reads PostgreSQL's hi/lo hex form as a byte position", () => {
    expect(parseLsn("0/3000000")).toBe(0x3000000);
    expect(parseLsn("16/B374D848")).toBe(0x16 * 2 ** 32 + 0xb374d848);
    expect(parseLsn("16/B374D848") - parseLsn("16/B374D800")).toBe(0x48);
  });

  it("refuses text that is no LSN", () => {
    expect(() => parseLsn("16-B374")).toThrow("not an LSN");
  });
});

describe("PrimaryPositions", () => {
  it("gives no lag to a replica that has replayed the newest position", () => {
    const p = new PrimaryPositions(60_000);
    p.record(1_000, 100);
    p.record(2_000, 200);
    expect(p.lagSeconds(200, 5_000)).toBe(0);
  });

  it("dates the lag from when the primary first wrote past what the replica replayed", () => {
    const p = new PrimaryPositions(60_000);
    p.record(1_000, 100);
    p.record(2_000, 150);
    p.record(3_000, 150); // a quiet poll dates nothing new
    p.record(4_000, 300);
    expect(p.lagSeconds(100, 6_000)).toBe(4);
    expect(p.lagSeconds(150, 6_000)).toBe(2);
  });

  it("shows a replica behind every kept position as at least the window behind", () => {
    const p = new PrimaryPositions(10_000);
    for (let t = 0; t <= 30_000; t += 1_000) p.record(t, t + 1);
    expect(p.lagSeconds(0, 30_000)).toBeGreaterThanOrEqual(10);
  });
});
