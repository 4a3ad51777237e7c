import { createCipheriv } from "node:crypto";
import { describe, expect, test } from "vitest";
import {
  BEACON_PERIOD_MS,
  beaconStartMs,
  gpsMsFromUnixMs,
  nextPingSlot,
  periodicityOfPingSlotInfo,
  pingNb,
  pingOffset,
  pingPeriod,
  pingSlotChannel,
  pingSlotTimes,
} from "./class-b.js";
import { REGIONS } from "./region.js";

/** The specification's Rand, computed here independently: AES-128 under a zero key of BeaconTime | DevAddr | pad. */
function specOffset(beaconTimeS: number, devAddrLe: number[], period: number): number {
  const block = Buffer.alloc(16);
  block.writeUInt32LE(beaconTimeS, 0);
  Buffer.from(devAddrLe).copy(block, 4);
  const rand = createCipheriv("aes-128-ecb", Buffer.alloc(16), null).setAutoPadding(false).update(block);
  return (rand[0]! + 256 * rand[1]!) % period;
}

describe("ping periodicity", () => {
  test.each([
    [0, 128, 32],
    [3, 16, 256],
    [7, 1, 4096],
  ])("periodicity %i gives %i slots per beacon period, %i slots apart", (p, nb, period) => {
    expect(pingNb(p)).toBe(nb);
    expect(pingPeriod(p)).toBe(period);
    expect(period * 30).toBe(960 * 2 ** p);
  });

  test("reads the periodicity from a PingSlotInfoReq payload byte, ignoring the RFU bits", () => {
    expect(periodicityOfPingSlotInfo(0xf5)).toBe(5);
  });
});

describe("beacon timing", () => {
  test("starts a beacon period every 128 s of GPS time", () => {
    expect(beaconStartMs(1_400_000_000_123)).toBe(Math.floor(1_400_000_000_123 / 128_000) * 128_000);
    expect(beaconStartMs(10 * BEACON_PERIOD_MS)).toBe(10 * BEACON_PERIOD_MS);
  });

  test("converts Unix time to GPS time with the epoch 1980-01-06 and 18 leap seconds", () => {
    expect(gpsMsFromUnixMs(Date.UTC(1980, 0, 6))).toBe(18_000);
    expect(gpsMsFromUnixMs(Date.UTC(2026, 11, 7))).toBe(Date.UTC(2026, 11, 7) - Date.UTC(1980, 0, 6) + 18_000);
  });
});

describe("ping slots", () => {
  // Two hand-picked beacons (whole multiples of 128 s of GPS time) and DevAddrs.
  test.each([
    [10_937_500 * 128, "26011bda", [0xda, 0x1b, 0x01, 0x26], 5],
    [10_937_501 * 128, "00000001", [0x01, 0x00, 0x00, 0x00], 0],
  ])("at beacon %i s, DevAddr %s, periodicity %i: slots open at the specification's times", (beaconS, addr, le, p) => {
    const expectedOffset = specOffset(beaconS, le, pingPeriod(p));
    expect(pingOffset(beaconS, addr, p)).toEqual({ ok: true, value: expectedOffset });
    const times = pingSlotTimes(beaconS * 1000, addr, p);
    expect(times.ok).toBe(true);
    if (!times.ok) return;
    expect(times.value).toHaveLength(pingNb(p));
    times.value.forEach((t, n) => expect(t).toBe(beaconS * 1000 + 2120 + (expectedOffset + n * pingPeriod(p)) * 30));
    // Every slot ends inside the 122.880 s ping window of its beacon period.
    expect(times.value.at(-1)! + 30).toBeLessThanOrEqual(beaconS * 1000 + 2120 + 122_880);
  });

  test("gives a device a different offset from one beacon period to the next", () => {
    const offsets = [0, 1, 2, 3, 4].map((k) => pingOffset(10_937_500 * 128 + k * 128, "26011bda", 7));
    expect(new Set(offsets.map((o) => (o.ok ? o.value : -1))).size).toBeGreaterThan(1);
  });

  test("finds the next ping slot, in the following beacon period once this one's last slot has passed", () => {
    const beacon = 10_937_500 * BEACON_PERIOD_MS;
    const slots = pingSlotTimes(beacon, "26011bda", 2);
    const following = pingSlotTimes(beacon + BEACON_PERIOD_MS, "26011bda", 2);
    if (!slots.ok || !following.ok) throw new Error("slots refused");
    expect(nextPingSlot(beacon, "26011bda", 2)).toEqual({ ok: true, value: slots.value[0] });
    expect(nextPingSlot(slots.value[1]! - 1, "26011bda", 2)).toEqual({ ok: true, value: slots.value[1] });
    expect(nextPingSlot(slots.value.at(-1)! + 1, "26011bda", 2)).toEqual({ ok: true, value: following.value[0] });
  });

  test("refuses a periodicity outside 0..7, a bad DevAddr and a time that is not a beacon start", () => {
    expect(pingOffset(0, "26011bda", 8).ok).toBe(false);
    expect(pingSlotTimes(0, "2601", 1)).toMatchObject({ ok: false, reason: expect.stringMatching(/devAddr/) });
    expect(pingSlotTimes(1000, "26011bda", 1)).toMatchObject({ ok: false, reason: expect.stringMatching(/beacon/) });
  });
});

describe("ping-slot channels (RP002-1.0.3 class B defaults)", () => {
  const beacon = 10_937_500 * BEACON_PERIOD_MS; // beacon period number 10,937,500: 4 mod 8

  test.each([
    ["EU868", 869_525_000, 3, "SF9BW125"],
    ["AS923-1", 923_400_000, 3, "SF9BW125"],
    ["AS923-2", 921_600_000, 3, "SF9BW125"],
    ["AS923-3", 916_800_000, 3, "SF9BW125"],
    ["AS923-4", 917_500_000, 3, "SF9BW125"],
    ["KR920", 923_100_000, 3, "SF9BW125"],
    ["IN865", 866_550_000, 4, "SF8BW125"],
    ["RU864", 868_900_000, 3, "SF9BW125"],
  ] as const)("%s: %i Hz at DR%i (%s) in every beacon period", (region, hz, dr, datr) => {
    for (const at of [beacon, beacon + BEACON_PERIOD_MS])
      expect(pingSlotChannel(region, at, "26011bda")).toEqual({ ok: true, value: { hz, dr } });
    const rate = REGIONS[region].downlinkDataRates[dr];
    expect(rate && rate.modu === "LORA" ? `SF${rate.sf}BW${rate.bwKHz}` : undefined).toBe(datr);
  });

  test.each([
    ["US915", "00000001", 0, 926_300_000, 8],
    ["US915", "00000001", 1, 926_900_000, 8],
    ["US915", "00000003", 0, 927_500_000, 8],
    ["US915", "00000003", 1, 923_300_000, 8],
    ["AU915", "00000002", 0, 926_900_000, 8],
    ["CN470", "00000001", 0, 509_300_000, 2],
    ["CN470", "00000004", 1, 508_500_000, 2],
  ] as const)("%s hops: DevAddr %s, beacon period +%i gives %i Hz at DR%i", (region, addr, k, hz, dr) => {
    expect(pingSlotChannel(region, beacon + k * BEACON_PERIOD_MS, addr)).toEqual({ ok: true, value: { hz, dr } });
    expect(REGIONS[region].downlinkDataRates[dr]).toBeDefined();
  });

  test("refuses a bad DevAddr and a region it does not know", () => {
    expect(pingSlotChannel("EU868", beacon, "26").ok).toBe(false);
    expect(pingSlotChannel("EU433", beacon, "26011bda")).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/EU433/),
    });
  });
});
