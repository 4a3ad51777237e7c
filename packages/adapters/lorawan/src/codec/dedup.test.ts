import { describe, expect, test } from "vitest";
import { betterCopy, UplinkDeduplicator, type HeardCopy } from "./dedup.js";

const frame = (n: number) => Buffer.from([0x40, 1, 2, 3, 4, 0, n, 0, 1, n, 9, 9, 9, 9]);
const copy = (gatewayEui: string, rssi: number, lsnr?: number): HeardCopy => ({ gatewayEui, rx: { rssi, lsnr } });

describe("UplinkDeduplicator", () => {
  test("three gateways hearing one frame within 200 ms make one uplink with all three copies", () => {
    const d = new UplinkDeduplicator();
    expect(d.add(frame(1), copy("gw1", -100, 2), 1000)).toBe("first");
    expect(d.add(frame(1), copy("gw2", -80, 7.5), 1050)).toBe("duplicate");
    expect(d.add(frame(1), copy("gw3", -70, 5), 1199)).toBe("duplicate");
    expect(d.due(1199)).toEqual([]);
    const [uplink, ...rest] = d.due(1200);
    expect(rest).toEqual([]);
    expect(uplink!.phyPayload).toEqual(frame(1));
    expect(uplink!.copies.map((c) => c.gatewayEui)).toEqual(["gw1", "gw2", "gw3"]);
    expect(uplink!.best.gatewayEui).toBe("gw2");
    expect(uplink!.firstHeardAt).toBe(1000);
    expect(d.openCount).toBe(0);
  });

  test("the best gateway has the highest SNR, and on equal SNR the highest RSSI", () => {
    const d = new UplinkDeduplicator();
    d.add(frame(1), copy("a", -90, 3), 0);
    d.add(frame(1), copy("b", -60, 3), 10);
    d.add(frame(1), copy("c", -120, -5), 20);
    expect(d.due(200)[0]!.best.gatewayEui).toBe("b");
  });

  test("on equal SNR and RSSI the first copy stays the best", () => {
    const d = new UplinkDeduplicator();
    d.add(frame(1), copy("a", -90, 3), 0);
    d.add(frame(1), copy("b", -90, 3), 10);
    expect(d.due(200)[0]!.best.gatewayEui).toBe("a");
  });

  test("a copy without SNR (FSK) ranks below any LoRa copy", () => {
    expect(betterCopy(copy("a", -120, -20), copy("b", -30))).toBe(true);
    expect(betterCopy(copy("a", -30), copy("b", -40))).toBe(true);
  });

  test("different bytes are different uplinks, each with its own window", () => {
    const d = new UplinkDeduplicator();
    expect(d.add(frame(1), copy("gw1", -90, 1), 0)).toBe("first");
    expect(d.add(frame(2), copy("gw1", -90, 1), 150)).toBe("first");
    expect(d.nextDeadline()).toBe(200);
    expect(d.due(200).map((u) => u.phyPayload[6])).toEqual([1]);
    expect(d.nextDeadline()).toBe(350);
    expect(d.due(350).map((u) => u.phyPayload[6])).toEqual([2]);
    expect(d.nextDeadline()).toBeUndefined();
  });

  test("a copy arriving after its window closed is late and dropped, not a new uplink", () => {
    const d = new UplinkDeduplicator();
    d.add(frame(1), copy("gw1", -90, 1), 0);
    expect(d.due(200)).toHaveLength(1);
    expect(d.add(frame(1), copy("gw2", -60, 9), 250)).toBe("late");
    expect(d.due(10_000)).toEqual([]);
  });

  test("closed uplinks are forgotten after rememberMs, so the same bytes much later open a new window", () => {
    const d = new UplinkDeduplicator({ rememberMs: 1000 });
    d.add(frame(1), copy("gw1", -90, 1), 0);
    d.due(200);
    expect(d.add(frame(1), copy("gw1", -90, 1), 1199)).toBe("late");
    expect(d.add(frame(1), copy("gw1", -90, 1), 1200)).toBe("first");
  });

  test("the same gateway forwarding the bytes twice keeps one copy, its better one", () => {
    const d = new UplinkDeduplicator();
    d.add(frame(1), copy("gw1", -90, 1), 0);
    d.add(frame(1), copy("gw1", -85, 4), 5);
    d.add(frame(1), copy("gw1", -99, -3), 6);
    const [u] = d.due(200);
    expect(u!.copies).toEqual([copy("gw1", -85, 4)]);
  });

  test("the window length is an option", () => {
    const d = new UplinkDeduplicator({ windowMs: 50 });
    d.add(frame(1), copy("gw1", -90, 1), 0);
    expect(d.nextDeadline()).toBe(50);
    expect(d.due(49)).toEqual([]);
    expect(d.due(50)).toHaveLength(1);
  });

  test("beyond maxOpen windows new uplinks overflow and are dropped; copies of open ones still join", () => {
    const d = new UplinkDeduplicator({ maxOpen: 2 });
    expect(d.add(frame(1), copy("gw1", -90, 1), 0)).toBe("first");
    expect(d.add(frame(2), copy("gw1", -90, 1), 0)).toBe("first");
    expect(d.add(frame(3), copy("gw1", -90, 1), 0)).toBe("overflow");
    expect(d.add(frame(1), copy("gw2", -90, 1), 1)).toBe("duplicate");
    expect(d.due(200)).toHaveLength(2);
    expect(d.add(frame(3), copy("gw1", -90, 1), 201)).toBe("first");
  });

  test("keys are the bytes: a view into a larger buffer matches a copy of the same bytes", () => {
    const d = new UplinkDeduplicator();
    const big = Buffer.concat([Buffer.from([9, 9]), frame(1), Buffer.from([9])]);
    d.add(big.subarray(2, 2 + frame(1).length), copy("gw1", -90, 1), 0);
    expect(d.add(frame(1), copy("gw2", -90, 1), 1)).toBe("duplicate");
    expect(d.due(200)[0]!.phyPayload).toEqual(frame(1));
  });
});
