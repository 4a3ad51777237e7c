import { sql, type Kysely } from "kysely";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ensurePartitions, listPartitions, partitionName, spanStart } from "./history-partitions.js";
import { PIPELINE_CURSOR_KEY } from "./pipeline-cursor-key.js";
import { RetentionSweeper } from "./retention.js";
import { HistoryPartitionKeeper } from "./history-partition-keeper.js";
import { appendEvents } from "../northbound/events.js";
import { OutboxPruner } from "../northbound/outbox-pruner.js";
import type { Database } from "./schema.js";
import type { Store } from "./store.js";
import { postgresEngine } from "./test-engines.js";

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** A UTC midnight: the start of a day partition. */
const NOW = Date.UTC(2026, 5, 1);

let seq = 0;

/** Uplinks of device `device` at each of `times`; answers their ids in order. */
async function addEvents(db: Kysely<Database>, times: number[], device = 1): Promise<number[]> {
  const rows = times.map((t) => ({
    tenantId: "t1",
    deviceIntId: device,
    gatewayIntId: null,
    topic: "up",
    payload: new Uint8Array([1]),
    ip: null,
    qos: 0,
    msgTime: t,
    createAt: t,
    msgKey: `k:${seq++}`,
  }));
  const ids = await db.insertInto("deviceEvents").values(rows).returning("id").execute();
  return ids.map((r) => Number(r.id));
}

async function addControlLog(db: Kysely<Database>, createAt: number, publishStatus: number): Promise<void> {
  await db
    .insertInto("controlLogs")
    .values({
      ...{ tenantId: "t1", deviceIntId: 1, groupIntId: null, topic: "in", payload: "on", qos: 1, publishStatus },
      ...{ createAt, userIntId: null, publishUser: null, expiresAt: null, updateAt: null },
    })
    .execute();
}

/** The partition each uplink of `ids` is stored in. */
async function whereStored(db: Kysely<Database>, ids: number[]): Promise<string[]> {
  const { rows } = await sql<{ part: string }>`select tableoid::regclass::text as part from device_events
    where id = any(${ids}::bigint[]) order by id`.execute(db);
  return rows.map((r) => r.part);
}

/** The tables a query's plan reads (EXPLAIN, format JSON). */
async function tablesScanned(query: { explain(format: "json"): Promise<Record<string, unknown>[]> }) {
  const plan = await query.explain("json");
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) {
        if (key === "Relation Name" && typeof value === "string") names.add(value);
        else walk(value);
      }
    }
  };
  walk(plan);
  return [...names].sort();
}

const day = (at: number, table = "device_events") => partitionName(table, at);

// Each test opens a store on a fresh schema (every migration, partitions made): seconds on a busy machine.
describe.skipIf(postgresEngine === undefined)("history partitions on PostgreSQL", { timeout: 60_000 }, () => {
  const engine = postgresEngine!;
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  const open = async (): Promise<Store> => (await engine.open()).store;

  it("makes a partition per day from the first day asked to three days ahead, and the default one keeps the rest", async () => {
    const { db } = await open();
    expect(await ensurePartitions(db, { spanDays: 1, from: NOW - 2 * DAY, now: NOW })).toBe(6 * 6);
    const names = (await listPartitions(db, "device_events")).map((p) => p.name);
    for (let d = -2; d <= 3; d++) expect(names).toContain(day(NOW + d * DAY));
    expect(names).toContain("device_events_default");
    expect(await ensurePartitions(db, { spanDays: 1, from: NOW - 2 * DAY, now: NOW })).toBe(0);
    const ids = await addEvents(db, [NOW + HOUR, NOW + 40 * DAY]);
    expect(await whereStored(db, ids)).toEqual([day(NOW), "device_events_default"]);
  });

  it("moves the rows the default partition holds for a new partition's range into it", async () => {
    const { db } = await open();
    const later = NOW + 40 * DAY;
    const ids = await addEvents(db, [later + HOUR, later + 2 * HOUR]);
    expect(await whereStored(db, ids)).toEqual(["device_events_default", "device_events_default"]);
    await ensurePartitions(db, { spanDays: 1, now: later, ahead: 0 });
    expect(await whereStored(db, ids)).toEqual([day(later), day(later)]);
  });

  it("makes partitions of a longer span only where no partition is yet", async () => {
    const { db } = await open();
    await ensurePartitions(db, { spanDays: 1, from: NOW, now: NOW, ahead: 0 });
    await ensurePartitions(db, { from: NOW, now: NOW, spanDays: 7, ahead: 0 });
    const week = Math.floor(NOW / (7 * DAY)) * 7 * DAY;
    const bounds = (await listPartitions(db, "connect_logs")).filter((p) => p.from !== undefined);
    const covered = bounds.map((p) => [p.from, p.to]);
    expect(covered).toContainEqual([NOW, NOW + DAY]);
    if (week < NOW) expect(covered).toContainEqual([week, NOW]);
    expect(covered).toContainEqual([NOW + DAY, week + 7 * DAY]);
  });

  // Week partitions: fewer to make than the days of a 90-day window, the same rules.
  const WEEK = 7;
  /** The week partition at the retention window's edge, and a cutoff inside it. */
  const edge = spanStart(NOW - 90 * DAY, WEEK);
  const cutoff = edge + 3 * DAY;
  const sweepAt = cutoff + 90 * DAY;

  it("drops the partitions wholly past the retention window and keeps the rows of the one at its edge", async () => {
    const { db } = await open();
    await ensurePartitions(db, { spanDays: WEEK, from: edge - 14 * DAY, now: sweepAt });
    const ids = await addEvents(db, [edge - 10 * DAY, edge - 5 * DAY, cutoff - HOUR, cutoff + HOUR, sweepAt]);
    await db
      .insertInto("settings")
      .values({ key: PIPELINE_CURSOR_KEY, value: String(ids.at(-1)) })
      .execute();
    const counts = await new RetentionSweeper(db, { retentionDays: 90, pauseMs: 0 }).sweep(sweepAt);
    expect(counts.deviceEvents).toBe(2);
    const names = (await listPartitions(db, "device_events")).map((p) => p.name);
    expect(names).not.toContain(day(spanStart(edge - 10 * DAY, WEEK)));
    expect(names).not.toContain(day(spanStart(edge - 5 * DAY, WEEK)));
    expect(names).toContain(day(edge));
    const left = await db.selectFrom("deviceEvents").select("id").orderBy("id").execute();
    expect(left.map((r) => Number(r.id))).toEqual(ids.slice(2));
  });

  it("keeps a partition past the window while it holds a command still waiting, deleting its settled ones", async () => {
    const { db } = await open();
    await ensurePartitions(db, { spanDays: WEEK, from: edge - 14 * DAY, now: sweepAt });
    await addControlLog(db, edge - 10 * DAY, 1);
    await addControlLog(db, edge - 10 * DAY + HOUR, 2);
    const counts = await new RetentionSweeper(db, { retentionDays: 90, pauseMs: 0 }).sweep(sweepAt);
    expect(counts.controlLogs).toBe(1);
    expect((await listPartitions(db, "control_logs")).map((p) => p.name)).toContain(
      day(spanStart(edge - 10 * DAY, WEEK), "control_logs"),
    );
    const left = await db.selectFrom("controlLogs").select("publishStatus").execute();
    expect(left).toEqual([{ publishStatus: 1 }]);
  });

  it("has the keeper make the partitions of the coming days on each round", async () => {
    const { db } = await open();
    const later = NOW + 30 * DAY;
    expect(await new HistoryPartitionKeeper(db, { spanDays: 1 }).runOnce(later)).toBe(4 * 6);
    const names = (await listPartitions(db, "northbound_events")).map((p) => p.name);
    for (let d = 0; d <= 3; d++) expect(names).toContain(day(later + d * DAY, "northbound_events"));
  });

  it("has the outbox pruner drop the outbox partitions wholly past its window and keep the one at its edge", async () => {
    const { db } = await open();
    await ensurePartitions(db, { from: NOW - 3 * DAY, now: NOW });
    const ev = (n: number) => ({ tenantId: "t", deviceIntId: null, type: "uplink" as const, time: n, data: { n } });
    await db.transaction().execute((tx) => appendEvents(tx, [ev(1), ev(2)], NOW - 3 * DAY + HOUR));
    await db.transaction().execute((tx) => appendEvents(tx, [ev(3)], NOW - DAY + HOUR));
    await db.transaction().execute((tx) => appendEvents(tx, [ev(4)], NOW - DAY + 3 * HOUR));
    const pruned = await new OutboxPruner(db, DAY, () => {}).pruneOnce(NOW + 2 * HOUR);
    expect(pruned.events).toBe(2);
    const names = (await listPartitions(db, "northbound_events")).map((p) => p.name);
    expect(names).not.toContain(day(NOW - 3 * DAY, "northbound_events"));
    expect(names).toContain(day(NOW - DAY, "northbound_events"));
    const left = await db.selectFrom("northboundEvents").select("createAt").orderBy("id").execute();
    expect(left.map((r) => Number(r.createAt))).toEqual([NOW - DAY + HOUR, NOW - DAY + 3 * HOUR]);
  });

  it("scans only the partitions of the range asked for one device's recent uplinks and values", async () => {
    const { db } = await open();
    await ensurePartitions(db, { spanDays: 1, from: NOW - 10 * DAY, now: NOW });
    for (let d = -10; d <= 0; d++) await addEvents(db, [NOW + d * DAY + HOUR]);
    const [start, end] = [NOW - 2 * DAY + HOUR, NOW - DAY + 2 * HOUR]; // two days' partitions
    // The REST uplink list's key query (listDeviceEvents) for one device, bounded in time.
    const uplinks = db
      .selectFrom("deviceEvents as e")
      .innerJoin("devices as d", "d.id", "e.deviceIntId")
      .select("e.id")
      .where("e.tenantId", "=", "t1")
      .where("e.deviceIntId", "=", 1)
      .where("e.msgTime", ">=", start)
      .where("e.msgTime", "<=", end)
      .orderBy("e.msgTime", "desc")
      .orderBy("e.id", "desc")
      .limit(20);
    expect(await tablesScanned(uplinks)).toEqual(["devices", day(NOW - 2 * DAY), day(NOW - DAY)].sort());
    // A data point's recent values (the series query of device-data.ts).
    const values = db
      .selectFrom("pointValues")
      .select(["valueTime", "numValue"])
      .where("deviceIntId", "=", 1)
      .where("dataPointIntId", "=", 1)
      .where("valueTime", ">=", start)
      .where("valueTime", "<=", end)
      .where("numValue", "is not", null)
      .orderBy("valueTime", "desc")
      .orderBy("id", "desc")
      .limit(100);
    expect(await tablesScanned(values)).toEqual(
      [day(NOW - 2 * DAY, "point_values"), day(NOW - DAY, "point_values")].sort(),
    );
    const metrics = db
      .selectFrom("metricValues")
      .select(["valueTime", "value"])
      .where("deviceIntId", "=", 1)
      .where("metricIntId", "=", 1)
      .where("valueTime", ">=", NOW - HOUR)
      .where("valueTime", "<=", NOW + HOUR);
    expect(await tablesScanned(metrics)).toEqual([day(NOW - DAY, "metric_values"), day(NOW, "metric_values")]);
  });
});
