/** verifyUplink's frame counter checks per fcntCheck mode: what is new, a retransmission, a replay or a gap. */
import { describe, expect, test } from "vitest";
import { reason, value } from "./result-test-kit.js";
import { MAX_FCNT_GAP, verifyUplink } from "./uplink.js";
import { device, only, uplink, verdict } from "./uplink-test-kit.js";

describe("verifyUplink: fcntCheck 1, strict 32-bit", () => {
  test("the first frame after a join (FCnt 0 or 1) is accepted", () => {
    expect(verdict(uplink(0), device(1, 0))).toMatchObject({ kind: "accepted", fcnt: 0, nextFCntUp: 1, missed: 0 });
    expect(verdict(uplink(1), device(1, 0))).toMatchObject({ kind: "accepted", fcnt: 1, nextFCntUp: 2, missed: 1 });
  });

  test("the last accepted FCnt again is a retransmission, not a new uplink", () => {
    expect(verdict(uplink(9, { confirmed: true }), device(1, 10))).toMatchObject({ kind: "retransmission", fcnt: 9 });
  });

  test("an older FCnt is a replay", () => {
    const v = verdict(uplink(5), device(1, 10));
    expect(v).toMatchObject({ kind: "refused", cause: "replay", fcnt: 5 });
    if (v.kind === "refused") expect(v.reason).toMatch(/FCnt 5 is behind the expected 10: replay/);
  });

  test("the upper 16 bits are inferred across the rollover of the 16 bits sent", () => {
    const v = verdict(uplink(65536, { payload: Buffer.from("rollover") }), device(1, 65536));
    expect(v).toMatchObject({ kind: "accepted", fcnt: 65536, nextFCntUp: 65537, missed: 0 });
    if (v.kind === "accepted") expect(v.payload.toString()).toBe("rollover");
    expect(verdict(uplink(70_005), device(1, 70_000))).toMatchObject({ kind: "accepted", fcnt: 70_005, missed: 5 });
  });

  test("a replay from before the rollover is still recognised as a replay", () => {
    expect(verdict(uplink(65_530), device(1, 65_540))).toMatchObject({ kind: "refused", cause: "replay" });
  });

  test(`a jump of ${MAX_FCNT_GAP} or more is refused as a gap`, () => {
    expect(verdict(uplink(MAX_FCNT_GAP - 1), device(1, 0))).toMatchObject({ kind: "accepted" });
    const v = verdict(uplink(MAX_FCNT_GAP), device(1, 0));
    expect(v).toMatchObject({ kind: "refused", cause: "gap" });
    if (v.kind === "refused") expect(v.reason).toMatch(/jumps 16384 past the expected 0, beyond 16384/);
  });

  test("the gap limit is an option", () => {
    expect(value(verifyUplink(uplink(50), only(device(1, 0)), { maxFCntGap: 10 }))).toMatchObject({ cause: "gap" });
  });

  test("the last 32-bit counter value cannot be accepted: the device must rejoin", () => {
    expect(verdict(uplink(0xffffffff), device(1, 0xffffffff))).toMatchObject({ kind: "refused", cause: "exhausted" });
    expect(verdict(uplink(0xfffffffe), device(1, 0xfffffffe))).toMatchObject({ nextFCntUp: 0xffffffff });
  });
});

describe("verifyUplink: fcntCheck 0, strict 16-bit", () => {
  test("accepts increasing counters and reports the 16-bit value", () => {
    expect(verdict(uplink(7), device(0, 5))).toMatchObject({ kind: "accepted", fcnt: 7, nextFCntUp: 8, missed: 2 });
  });

  test("follows the device's 16-bit counter through its wrap to 0", () => {
    expect(verdict(uplink(0xffff), device(0, 65_535))).toMatchObject({ fcnt: 65_535, nextFCntUp: 65_536 });
    expect(verdict(uplink(0), device(0, 65_536))).toMatchObject({ kind: "accepted", fcnt: 0, nextFCntUp: 65_537 });
    expect(verdict(uplink(0), device(0, 65_535))).toMatchObject({ fcnt: 0, nextFCntUp: 65_537, missed: 1 });
    expect(verdict(uplink(1), device(0, 65_537))).toMatchObject({ kind: "accepted", fcnt: 1, nextFCntUp: 65_538 });
  });

  test("a retransmission and a replay are told apart", () => {
    expect(verdict(uplink(99), device(0, 100))).toMatchObject({ kind: "retransmission", fcnt: 99 });
    expect(verdict(uplink(50), device(0, 100))).toMatchObject({ kind: "refused", cause: "replay" });
  });

  test("a far jump is a gap", () => {
    expect(verdict(uplink(20_000), device(0, 0))).toMatchObject({ kind: "refused", cause: "gap" });
  });

  test("a 32-bit device past 65535 does not authenticate: its MIC covers upper bits this mode does not send", () => {
    expect(reason(verifyUplink(uplink(65_540), only(device(0, 65_539))))).toMatch(/MIC does not match/);
  });

  test("a device restarting at 0 is refused (only mode 2 accepts resets)", () => {
    expect(verdict(uplink(0), device(0, 500))).toMatchObject({ kind: "refused", cause: "replay" });
  });
});

describe("verifyUplink: fcntCheck 2, reset on zero", () => {
  test("a counter back near 0 is accepted as a reset of the device", () => {
    expect(verdict(uplink(0), device(2, 500))).toMatchObject({ kind: "accepted", fcnt: 0, nextFCntUp: 1, reset: true });
    expect(verdict(uplink(3), device(2, 500))).toMatchObject({
      kind: "accepted",
      nextFCntUp: 4,
      missed: 3,
      reset: true,
    });
  });

  test("other older counters are still replays, and normal traffic is accepted without reset", () => {
    expect(verdict(uplink(10), device(2, 500))).toMatchObject({ kind: "refused", cause: "replay" });
    expect(verdict(uplink(500), device(2, 500))).toMatchObject({ kind: "accepted", reset: false, nextFCntUp: 501 });
    expect(verdict(uplink(499), device(2, 500))).toMatchObject({ kind: "retransmission" });
  });

  test("the reset threshold is an option", () => {
    const v = value(verifyUplink(uplink(30), only(device(2, 500)), { maxLostAfterReset: 50 }));
    expect(v).toMatchObject({ kind: "accepted", reset: true });
  });
});

describe("verifyUplink: fcntCheck 3, disabled", () => {
  test("any authentic counter is accepted; going backwards is reported as a reset", () => {
    expect(verdict(uplink(50), device(3, 100))).toMatchObject({
      kind: "accepted",
      fcnt: 50,
      nextFCntUp: 51,
      reset: true,
    });
    expect(verdict(uplink(99), device(3, 100))).toMatchObject({ kind: "accepted", fcnt: 99, reset: false });
    expect(verdict(uplink(40_000), device(3, 100))).toMatchObject({ kind: "accepted", missed: 39_900 });
  });

  test("32-bit counters still authenticate", () => {
    expect(verdict(uplink(70_001), device(3, 70_000))).toMatchObject({ kind: "accepted", fcnt: 70_001 });
  });

  test("a wrong MIC is still refused", () => {
    expect(reason(verifyUplink(uplink(1, { nwk: Buffer.alloc(16) }), only(device(3, 0))))).toMatch(/MIC/);
  });
});
