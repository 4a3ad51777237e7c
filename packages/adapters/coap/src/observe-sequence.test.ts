import { describe, expect, it } from "vitest";
import { isNewerNotification } from "./observe-sequence.js";

describe("isNewerNotification (RFC 7641 §3.4)", () => {
  it("takes a larger number within half the space as newer, and a smaller or equal one as older", () => {
    expect(isNewerNotification(5, 0, 6, 1)).toBe(true);
    expect(isNewerNotification(5, 0, 5 + 2 ** 23 - 1, 1)).toBe(true);
    expect(isNewerNotification(5, 0, 4, 1)).toBe(false);
    expect(isNewerNotification(5, 0, 5, 1)).toBe(false);
    expect(isNewerNotification(5, 0, 5 + 2 ** 23 + 1, 1)).toBe(false);
  });

  it("takes a number that wrapped past 2^24 as newer", () => {
    expect(isNewerNotification(2 ** 24 - 2, 0, 3, 1)).toBe(true);
    expect(isNewerNotification(3, 0, 2 ** 24 - 2, 1)).toBe(false);
  });

  it("takes any number as newer more than 128 s after the last notification", () => {
    expect(isNewerNotification(9, 0, 2, 128_000)).toBe(false);
    expect(isNewerNotification(9, 0, 2, 128_001)).toBe(true);
  });
});
