import { CompiledQuery } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { insertDeviceLogs } from "./control-log-insert.js";
import { settleReports, settleText } from "./settle-batch.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

/** `n` issued control logs of device 7 (topics t0, t1, …), answered by id in order. */
async function issuedLogs(db: Parameters<typeof insertDeviceLogs>[0], n: number, deviceIntId = 7) {
  const rows = Array.from({ length: n }, (_, i) => ({
    tenantId: "t",
    deviceIntId,
    topic: `t${i}`,
    payload: "x",
    qos: 1,
    publishStatus: 1,
    userIntId: null,
    publishUser: null,
    expiresAt: null,
    createAt: 0,
    taskIntId: null,
  }));
  return (await insertDeviceLogs(db, rows)).map((r) => r.id).sort((a, b) => a - b);
}

describe.each(engines)("delivery reports on $name", (engine) => {
  it("settles each still issued log once, by outcome, keeping the adapter's message as its result", async () => {
    const { store } = await engine.open();
    const db = store.db;
    const [a, b, c, settled] = await issuedLogs(db, 4);
    await db.updateTable("controlLogs").set({ publishStatus: 2 }).where("id", "=", settled!).execute();
    const reports = [
      { downlinkId: a!, status: 2, message: "", now: 10 },
      { downlinkId: b!, status: 0, message: "no PUBACK", now: 11 },
      { downlinkId: c!, status: 2, message: "", now: 12 },
      { downlinkId: a!, status: 0, message: "again", now: 13 }, // a second report on a settled log changes nothing
      { downlinkId: settled!, status: 0, message: "late", now: 14 },
      { downlinkId: 999_999, status: 2, message: "", now: 15 },
    ];
    const changed = await db.transaction().execute((tx) => settleReports(tx, reports));
    expect(changed.map((l) => l && [l.id, l.topic, l.tenantId, Number(l.deviceIntId), l.taskIntId])).toEqual([
      [a, "t0", "t", 7, null],
      [b, "t1", "t", 7, null],
      [c, "t2", "t", 7, null],
      undefined,
      undefined,
      undefined,
    ]);
    expect(changed[0]!.report).toBe(reports[0]);
    const rows = await db
      .selectFrom("controlLogs")
      .select(["id", "publishStatus", "updateAt", "result"])
      .orderBy("id")
      .execute();
    expect(rows.map((r) => [Number(r.id), r.publishStatus, Number(r.updateAt ?? 0), r.result])).toEqual([
      [a, 2, 15, null],
      [b, 0, 11, "no PUBACK"],
      [c, 2, 15, null],
      [settled, 2, 0, null],
    ]);
  });

  it("settles batches longer than one statement's IN list", async () => {
    const { store } = await engine.open();
    const ids = await issuedLogs(store.db, 600);
    const reports = ids.map((downlinkId) => ({ downlinkId, status: 3, message: "", now: 5 }));
    const changed = await store.db.transaction().execute((tx) => settleReports(tx, reports));
    expect(changed.map((l) => l?.id)).toEqual(ids);
  });
});

describe("delivery reports on SQLite", () => {
  it("find their logs by id, not by reading every issued log through the index of issued ones", async () => {
    const { store } = await engines[0]!.open();
    expect(store.engine).toBe("sqlite");
    const explain = `explain query plan ${settleText("sqlite", 8, 3)}`;
    const plan = await store.db.executeQuery<{ detail: string }>(CompiledQuery.raw(explain, Array(11).fill(1)));
    expect(plan.rows.map((r) => r.detail)).toEqual(["SEARCH control_logs USING INTEGER PRIMARY KEY (rowid=?)"]);
  });
});
