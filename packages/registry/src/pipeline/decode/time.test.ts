import { describe, expect, it } from "vitest";
import { epochMs, MAX_EPOCH_MS } from "./time.js";

describe("epochMs", () => {
  it("takes numbers as epoch milliseconds, dropping fractions", () => {
    expect(epochMs(0)).toBe(0);
    expect(epochMs(1714564800000)).toBe(1714564800000);
    expect(epochMs(1714564800000.9)).toBe(1714564800000);
    expect(epochMs(MAX_EPOCH_MS)).toBe(MAX_EPOCH_MS);
  });

  it("refuses negative, too late and non-finite numbers", () => {
    expect(epochMs(-1)).toBeUndefined();
    expect(epochMs(MAX_EPOCH_MS + 1)).toBeUndefined();
    expect(epochMs(NaN)).toBeUndefined();
    expect(epochMs(Infinity)).toBeUndefined();
  });

  it("reads ISO 8601 date-times with Z or a numeric offset, with or without seconds and fractions", () => {
    expect(epochMs("2024-05-01T12:00:00Z")).toBe(Date.UTC(2024, 4, 1, 12));
    expect(epochMs("2024-05-01T12:00Z")).toBe(Date.UTC(2024, 4, 1, 12));
    expect(epochMs("2024-05-01T14:00:00.250+02:00")).toBe(Date.UTC(2024, 4, 1, 12, 0, 0, 250));
    expect(epochMs("2024-05-01T10:30:00-0130")).toBe(Date.UTC(2024, 4, 1, 12));
    expect(epochMs("2024-02-29T00:00:00Z")).toBe(Date.UTC(2024, 1, 29));
  });

  it("refuses strings without an offset, impossible dates and clock fields and other shapes", () => {
    for (const bad of [
      "2024-05-01T12:00:00",
      "2024-05-01",
      "2023-02-29T00:00:00Z",
      "2024-02-30T00:00:00Z",
      "2024-13-01T00:00:00Z",
      "2024-00-01T00:00:00Z",
      "2024-01-01T24:00:00Z",
      "2024-01-01T12:60:00Z",
      "2024-01-01T12:00:60Z",
      "1969-12-31T23:59:59Z",
      "1714564800000",
      " 2024-05-01T12:00:00Z",
    ]) {
      expect(epochMs(bad), bad).toBeUndefined();
    }
    expect(epochMs(true)).toBeUndefined();
    expect(epochMs(null)).toBeUndefined();
    expect(epochMs({})).toBeUndefined();
  });
});
