import { describe, expect, it } from "vitest";
import type { UplinkRecord } from "../store/store.js";
import { RecentUplinks } from "./recent-uplinks.js";

const record = (n: number): UplinkRecord => ({
  msgKey: `a:${n}`,
  tenantId: "t",
  deviceIntId: 1,
  gatewayIntId: null,
  topic: "telemetry",
  payload: Buffer.from(String(n)),
  ip: "10.0.0.1",
  qos: 1,
  msgTime: 1000 + n,
});

/** Records n…m stored with ids id0…, as a writer's commit hands them over. */
function committed(ns: number[], ids: number[]) {
  return [ns.map(record), new Map(ns.map((n, i) => [`a:${n}`, ids[i]!]))] as const;
}

const idsOf = (rows: { id: number }[] | undefined) => rows?.map((r) => r.id);

describe("RecentUplinks", () => {
  it("answers a range it holds whole, with the fields the pipeline decodes, and holds nothing of it afterwards", () => {
    const recent = new RecentUplinks(100);
    recent.add(...committed([1, 2, 3], [11, 12, 13]));
    const rows = recent.take(10, 12, 2);
    expect(rows).toEqual([
      {
        id: 11,
        msgKey: "a:1",
        tenantId: "t",
        deviceIntId: 1,
        gatewayIntId: null,
        topic: "telemetry",
        payload: Buffer.from("1"),
        msgTime: 1001,
      },
      {
        id: 12,
        msgKey: "a:2",
        tenantId: "t",
        deviceIntId: 1,
        gatewayIntId: null,
        topic: "telemetry",
        payload: Buffer.from("2"),
        msgTime: 1002,
      },
    ]);
    expect(recent.size).toBe(1);
    expect(idsOf(recent.take(12, 13, 1))).toEqual([13]);
  });

  it("answers nothing when the database counted a row it does not hold, and drops the range all the same", () => {
    const recent = new RecentUplinks(100);
    // Id 12 was written by someone else (another node, an import).
    recent.add(...committed([1, 3], [11, 13]));
    expect(recent.take(10, 13, 3)).toBeUndefined();
    expect(recent.size).toBe(0);
  });

  it("skips the rows up to the cursor and keeps those past the range", () => {
    const recent = new RecentUplinks(100);
    recent.add(...committed([1, 2, 3, 4], [11, 12, 13, 14]));
    expect(idsOf(recent.take(12, 13, 1))).toEqual([13]);
    expect(idsOf(recent.take(13, 20, 1))).toEqual([14]);
  });

  it("holds only the records stored now: a replay has no id", () => {
    const recent = new RecentUplinks(100);
    recent.add([record(1), record(2)], new Map([["a:2", 12]]));
    expect(idsOf(recent.take(0, 12, 1))).toEqual([12]);
  });

  it("keeps the newest rows up to its limit, so a pipeline far behind reads the older ones from the database", () => {
    const recent = new RecentUplinks(3);
    recent.add(...committed([1, 2], [1, 2]));
    recent.add(...committed([3, 4, 5], [3, 4, 5]));
    expect(recent.size).toBe(3);
    expect(recent.take(0, 5, 5)).toBeUndefined();
    recent.add(...committed([6, 7], [6, 7]));
    expect(idsOf(recent.take(5, 7, 2))).toEqual([6, 7]);
  });

  it("puts commits that arrive out of id order back in order", () => {
    const recent = new RecentUplinks(100);
    recent.add(...committed([3, 4], [13, 14]));
    recent.add(...committed([1, 2], [11, 12]));
    expect(idsOf(recent.take(10, 14, 4))).toEqual([11, 12, 13, 14]);
  });

  it("hands out commit after commit as the pipeline takes them, holding none once taken", () => {
    const recent = new RecentUplinks(10);
    for (let b = 0; b < 50; b++) {
      const ns = [b * 4 + 1, b * 4 + 2, b * 4 + 3, b * 4 + 4];
      recent.add(...committed(ns, ns));
      expect(idsOf(recent.take(b * 4, b * 4 + 4, 4))).toEqual(ns);
      expect(recent.size).toBe(0);
    }
  });
});
