// Every region checked against the values of LoRaWAN Regional Parameters RP002-1.0.3, table by table: the section
// and table each row comes from is named in the row. Expected values are typed in here from the document, not
// computed from the region module.
import { describe, expect, test } from "vitest";
import { decodeCfList, planDownlink, REGIONS, regionByName, withDwellTime, type RegionName } from "../region.js";
import type { RxPacket } from "../radio-packet.js";

const v = <T>(r: { ok: true; value: T } | { ok: false; reason: string }): T => {
  if (!r.ok) throw new Error(r.reason);
  return r.value;
};

interface Expected {
  /** Section of RP002-1.0.3. */
  section: string;
  /** "DR: SFxBWy" of the data-rate table (FSK as FSK50). */
  up: Record<number, string>;
  down?: Record<number, string>;
  /** Repeater-compatible M by DR ("Maximum payload size" table). */
  m: Record<number, number>;
  rx2: [number, number];
  /** Rows of the "RX1 DR" table: uplink DR → DR by offset. */
  rx1: Record<number, number[]>;
  defaults: number[];
  cfListType: 0 | 1 | undefined;
  /** An uplink frequency and the RX1 frequency that answers it. */
  rx1Freq: [number, number];
}

const DR_EU = { 0: "SF12BW125", 1: "SF11BW125", 2: "SF10BW125", 3: "SF9BW125", 4: "SF8BW125", 5: "SF7BW125" };
const M_EU = { 0: 59, 1: 59, 2: 59, 3: 123, 4: 230, 5: 230 };
const MINUS = (drs: number[]) =>
  Object.fromEntries(drs.map((d) => [d, [0, 1, 2, 3, 4, 5].map((o) => Math.max(0, d - o))]));
const AS923_RX1 = {
  0: [0, 0, 0, 0, 0, 0, 1, 2],
  2: [2, 1, 0, 0, 0, 0, 3, 4],
  5: [5, 4, 3, 2, 1, 0, 6, 7],
  7: [7, 6, 5, 4, 3, 2, 7, 7],
};
const as923 = (offsetHz: number): Expected => ({
  section: "§2.8 AS923 (data-rate, maximum-payload-size and RX1 DR tables; §2.8.7 default settings)",
  up: { ...DR_EU, 6: "SF7BW250", 7: "FSK50" },
  m: { ...M_EU, 6: 230, 7: 230 },
  rx2: [923_200_000 - offsetHz, 2],
  rx1: AS923_RX1,
  defaults: [923_200_000 - offsetHz, 923_400_000 - offsetHz],
  cfListType: 0,
  rx1Freq: [923_400_000 - offsetHz, 923_400_000 - offsetHz],
});

const EXPECTED: Record<RegionName, Expected> = {
  EU868: {
    section: "§2.2 EU863-870 (data-rate, maximum-payload-size and RX1 DR tables; §2.2.7 default settings)",
    up: { ...DR_EU, 6: "SF7BW250", 7: "FSK50" },
    m: { ...M_EU, 6: 230, 7: 230 },
    rx2: [869_525_000, 0],
    rx1: MINUS([0, 3, 5, 7]),
    defaults: [868_100_000, 868_300_000, 868_500_000],
    cfListType: 0,
    rx1Freq: [868_300_000, 868_300_000],
  },
  US915: {
    section: "§2.5 US902-928 (data-rate, maximum-payload-size and RX1 DR tables; §2.5.7 default settings)",
    up: { 0: "SF10BW125", 1: "SF9BW125", 2: "SF8BW125", 3: "SF7BW125", 4: "SF8BW500" },
    down: { 8: "SF12BW500", 9: "SF11BW500", 10: "SF10BW500", 11: "SF9BW500", 12: "SF8BW500", 13: "SF7BW500" },
    m: { 0: 19, 1: 61, 2: 133, 3: 250, 4: 250, 8: 41, 9: 117, 10: 230, 13: 230 },
    rx2: [923_300_000, 8],
    rx1: { 0: [10, 9, 8, 8], 3: [13, 12, 11, 10], 4: [13, 13, 12, 11] },
    defaults: [],
    cfListType: 1,
    rx1Freq: [902_300_000 + 9 * 200_000, 923_300_000 + 1 * 600_000],
  },
  AU915: {
    section: "§2.7 AU915-928 (data-rate, maximum-payload-size and RX1 DR tables; §2.7.7 default settings)",
    up: { ...DR_EU, 6: "SF8BW500" },
    down: { 8: "SF12BW500", 9: "SF11BW500", 10: "SF10BW500", 11: "SF9BW500", 12: "SF8BW500", 13: "SF7BW500" },
    m: { ...M_EU, 6: 230, 8: 41, 9: 117, 10: 230, 13: 230 },
    rx2: [923_300_000, 8],
    rx1: {
      0: [8, 8, 8, 8, 8, 8],
      1: [9, 8, 8, 8, 8, 8],
      2: [10, 9, 8, 8, 8, 8],
      3: [11, 10, 9, 8, 8, 8],
      4: [12, 11, 10, 9, 8, 8],
      5: [13, 12, 11, 10, 9, 8],
      6: [13, 13, 12, 11, 10, 9],
    },
    defaults: [],
    cfListType: 1,
    rx1Freq: [915_200_000 + 10 * 200_000, 923_300_000 + 2 * 600_000],
  },
  CN470: {
    section: "RP v1.0.2rB §2.6 CN470-510 (data rates, payload, RX1 DR; RX2 505.3 MHz DR0)",
    up: DR_EU,
    m: M_EU,
    rx2: [505_300_000, 0],
    rx1: MINUS([0, 5]),
    defaults: [],
    cfListType: undefined,
    rx1Freq: [470_300_000 + 50 * 200_000, 500_300_000 + 2 * 200_000],
  },
  "AS923-1": as923(0),
  "AS923-2": as923(1_800_000),
  "AS923-3": as923(6_600_000),
  "AS923-4": as923(5_900_000),
  KR920: {
    section: "§2.10 KR920-923 (data-rate, maximum-payload-size and RX1 DR tables; §2.10.7 default settings)",
    up: DR_EU,
    m: M_EU,
    rx2: [921_900_000, 0],
    rx1: MINUS([0, 2, 5]),
    defaults: [922_100_000, 922_300_000, 922_500_000],
    cfListType: 0,
    rx1Freq: [922_300_000, 922_300_000],
  },
  IN865: {
    section: "§2.11 IN865-867 (data-rate, maximum-payload-size and RX1 DR tables; §2.11.7 default settings)",
    up: { ...DR_EU, 7: "FSK50" },
    m: { ...M_EU, 7: 230 },
    rx2: [866_550_000, 2],
    rx1: { 0: [0, 0, 0, 0, 0, 0, 1, 2], 4: [4, 3, 2, 1, 0, 0, 5, 5], 5: [5, 4, 3, 2, 1, 0, 5, 5] },
    defaults: [865_062_500, 865_402_500, 865_985_000],
    cfListType: 0,
    rx1Freq: [865_402_500, 865_402_500],
  },
  RU864: {
    section: "§2.13 RU864-870 (data-rate, maximum-payload-size and RX1 DR tables; §2.13.7 default settings)",
    up: { ...DR_EU, 6: "SF7BW250", 7: "FSK50" },
    m: { ...M_EU, 6: 230, 7: 230 },
    rx2: [869_100_000, 0],
    rx1: MINUS([0, 4, 7]),
    defaults: [868_900_000, 869_100_000],
    cfListType: 0,
    rx1Freq: [869_100_000, 869_100_000],
  },
};

const rateName = (r: { modu: string; sf?: number; bwKHz?: number; bitRate?: number }) =>
  r.modu === "FSK" ? `FSK${r.bitRate! / 1000}` : `SF${r.sf}BW${r.bwKHz}`;

describe.each(Object.entries(EXPECTED))("%s", (name, e) => {
  const region = v(regionByName(name));

  test(`is found by its name (${e.section})`, () => {
    expect(region.name).toBe(name);
    expect(REGIONS[name as RegionName]).toBe(region);
  });

  test("has the data rates of the data-rate table", () => {
    for (const [dr, rate] of Object.entries(e.up)) expect(rateName(region.uplinkDataRates[Number(dr)]!)).toBe(rate);
    for (const [dr, rate] of Object.entries(e.down ?? e.up))
      expect(rateName(region.downlinkDataRates[Number(dr)]!)).toBe(rate);
  });

  test("has the maximum payload sizes of the payload table (repeater compatible)", () => {
    for (const [dr, m] of Object.entries(e.m)) expect(region.maxPayload[Number(dr)]).toEqual({ m, n: m - 8 });
  });

  test("answers RX1 at the data rates of the RX1 DR table", () => {
    for (const [dr, row] of Object.entries(e.rx1))
      row.forEach((want, offset) => expect(v(region.rx1DataRate(Number(dr), offset))).toBe(want));
    expect(region.rx1DataRate(0, region.maxRx1DrOffset + 1).ok).toBe(false);
  });

  test("answers RX1 on the channel the uplink channel maps to", () => {
    expect(v(region.rx1Frequency(e.rx1Freq[0]))).toBe(e.rx1Freq[1]);
  });

  test("has the RX2 defaults, join channels and CFList type of its default settings", () => {
    expect([region.rx2.frequency, region.rx2.dataRate]).toEqual(e.rx2);
    expect([...region.defaultChannels]).toEqual(e.defaults);
    expect(region.cfListType).toBe(e.cfListType);
    if (region.defaultCfList) expect(v(decodeCfList(region.defaultCfList)).type).toBe(0);
    expect(region.gatewayChannels.length).toBeGreaterThan(0);
    for (const hz of region.gatewayChannels) expect(region.rx1Frequency(hz).ok).toBe(true);
  });

  test("plans an RX2 JoinAccept at the RX2 default", () => {
    const [hz, dr] = e.rx2;
    const upDatr =
      e.up[
        Math.min(
          ...Object.keys(e.up)
            .map(Number)
            .filter((d) => e.up[d] !== "FSK50"),
        )
      ]!;
    const rx: RxPacket = {
      tmst: 5_000_000,
      freq: e.rx1Freq[0] / 1e6,
      modu: "LORA",
      datr: upDatr,
      rssi: -80,
      size: 17,
      data: Buffer.alloc(17),
    };
    const tx = v(planDownlink(region, rx, Buffer.alloc(17), { window: "rx2", kind: "join" }));
    expect(tx.freq).toBeCloseTo(hz / 1e6, 6);
    expect(tx.datr).toBe((e.down ?? e.up)[dr]);
    expect(tx.tmst).toBe(11_000_000);
  });
});

describe("AS923 dwell time (RP002-1.0.3 §2.8: maximum payload size with DwellTime 1, RX1 DR table with DownlinkDwellTime 1)", () => {
  const dwell = withDwellTime(REGIONS["AS923-1"]);

  test("DR0 and DR1 carry no frame and DR2..4 are shorter", () => {
    expect(dwell.dwellTime).toBe(true);
    expect(dwell.maxPayload[0]).toBeUndefined();
    expect(dwell.maxPayload[1]).toBeUndefined();
    expect([2, 3, 4, 5].map((dr) => dwell.maxPayload[dr]!.m)).toEqual([19, 61, 133, 230]);
  });

  test("RX1 never goes below DR2", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((o) => v(dwell.rx1DataRate(0, o)))).toEqual([2, 2, 2, 2, 2, 2, 2, 2]);
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((o) => v(dwell.rx1DataRate(3, o)))).toEqual([3, 2, 2, 2, 2, 2, 4, 5]);
  });

  test("regions without dwell time are left as they are", () => {
    expect(withDwellTime(REGIONS.EU868)).toBe(REGIONS.EU868);
    expect(REGIONS["AS923-2"].dwellTime).toBe(false);
  });
});

test("AS923 names AS923-1, and region names outside RP002's are refused", () => {
  expect(v(regionByName("as923")).name).toBe("AS923-1");
  expect(v(regionByName("as923_3")).name).toBe("AS923-3");
  expect(regionByName("AS923-5").ok).toBe(false);
});
