import { describe, expect, test } from "vitest";
import { acceptDevNonce11, nextJoinNonce } from "./lorawan11-join.js";

describe("acceptDevNonce11", () => {
  test("accepts the first DevNonce and each that increases", () => {
    expect(acceptDevNonce11(undefined, 0)).toEqual({ ok: true, value: 0 });
    expect(acceptDevNonce11(0, 1)).toEqual({ ok: true, value: 1 });
    expect(acceptDevNonce11(1, 40)).toEqual({ ok: true, value: 40 });
  });

  test.each([
    [5, 5],
    [5, 4],
  ])("refuses DevNonce %i after %i as a replay", (last, nonce) => {
    expect(acceptDevNonce11(last, nonce)).toMatchObject({ ok: false, reason: expect.stringMatching(/replayed/) });
  });

  test("refuses a DevNonce outside 16 bits", () => {
    expect(acceptDevNonce11(undefined, 0x10000).ok).toBe(false);
  });
});

describe("nextJoinNonce", () => {
  test("counts up from 0 with every JoinAccept", () => {
    expect(nextJoinNonce(undefined)).toEqual({ ok: true, value: 0 });
    expect(nextJoinNonce(41)).toEqual({ ok: true, value: 42 });
  });

  test("refuses to wrap past 24 bits", () => {
    expect(nextJoinNonce(0xffffff).ok).toBe(false);
  });
});
