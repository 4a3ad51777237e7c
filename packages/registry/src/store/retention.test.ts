import { DeleteQueryBuilder, type DeleteResult } from "kysely";
import { quietFor } from "@iot/config/testing";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { PIPELINE_CURSOR_KEY } from "./pipeline-cursor-key.js";
import { RetentionSweeper, type RetentionCounts } from "./retention.js";
import type { Store } from "./store.js";
import { engines } from "./test-engines.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);
/** 100 days before NOW: past the 90-day retention. */
const OLD = NOW - 100 * DAY;
/** 10 days before NOW: kept. */
const NEW = NOW - 10 * DAY;
/** Rows per insert statement, well within both engines' bound-parameter limits. */
const CHUNK = 500;

let seq = 0;

async function insertChunked<T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await insert(rows.slice(i, i + CHUNK));
}

/** Device events received at each of `times`; answers their ids in order. */
async function addEvents(store: Store, times: number[]): Promise<number[]> {
  const rows = times.map((t) => ({
    tenantId: "t1",
    deviceIntId: 1,
    gatewayIntId: null,
    topic: "up",
    payload: new Uint8Array([1]),
    ip: null,
    qos: 0,
    msgTime: t,
    createAt: t,
    msgKey: `a:${seq++}`,
  }));
  await insertChunked(rows, (chunk) => store.db.insertInto("deviceEvents").values(chunk).execute());
  const ids = await store.db.selectFrom("deviceEvents").select("id").orderBy("id").execute();
  return ids.slice(-times.length).map((r) => Number(r.id));
}

async function addConnectLogs(store: Store, times: number[]): Promise<void> {
  const rows = times.map((t) => ({
    tenantId: "t1",
    deviceIntId: 1,
    deviceId: "d1",
    deviceName: "d1",
    connectStatus: 1,
    ip: null,
    keepAlive: null,
    sessionId: null,
    reason: null,
    createAt: t,
    updateAt: null,
  }));
  await insertChunked(rows, (chunk) => store.db.insertInto("connectLogs").values(chunk).execute());
}

async function addControlLog(store: Store, createAt: number, publishStatus: number): Promise<void> {
  await store.db
    .insertInto("controlLogs")
    .values({
      tenantId: "t1",
      deviceIntId: 1,
      groupIntId: null,
      topic: "inbox",
      payload: "on",
      qos: 1,
      publishStatus,
      userIntId: null,
      publishUser: null,
      expiresAt: null,
      createAt,
      updateAt: null,
    })
    .execute();
}

async function addValues(store: Store, receivedAt: number, valueTime = receivedAt): Promise<void> {
  const eventId = seq++;
  await store.db
    .insertInto("pointValues")
    .values({
      tenantId: "t1",
      deviceIntId: 1,
      dataPointIntId: 1,
      eventId,
      valueTime,
      receivedAt,
      numValue: 1,
      textValue: null,
    })
    .execute();
  await store.db
    .insertInto("metricValues")
    .values({ tenantId: "t1", deviceIntId: 1, metricIntId: 1, eventId, valueTime, value: 1 })
    .execute();
}

async function setCursor(store: Store, id: number): Promise<void> {
  await store.db
    .insertInto("settings")
    .values({ key: PIPELINE_CURSOR_KEY, value: String(id) })
    .execute();
}

async function count(store: Store, table: keyof RetentionCounts): Promise<number> {
  const { n } = await store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(n);
}

const sweeper = (store: Store, options: Partial<ConstructorParameters<typeof RetentionSweeper>[1]> = {}) =>
  new RetentionSweeper(store.db, { retentionDays: 90, pauseMs: 0, ...options });

describe.each(engines)("retention sweeper on $name", (engine) => {
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  it("deletes events, values and logs older than the retention period and keeps the newer ones", async () => {
    const { store } = await engine.open();
    const ids = await addEvents(store, [OLD, OLD, NEW]);
    await setCursor(store, ids.at(-1)!);
    await addValues(store, OLD);
    await addValues(store, NEW);
    await addConnectLogs(store, [OLD, OLD, OLD, NEW]);
    await addControlLog(store, OLD, 2);
    await addControlLog(store, NEW, 2);

    const counts = await sweeper(store).sweep(NOW);

    expect(counts).toEqual({ deviceEvents: 2, pointValues: 1, metricValues: 1, connectLogs: 3, controlLogs: 1 });
    const events = await store.db.selectFrom("deviceEvents").select("id").execute();
    expect(events.map((e) => Number(e.id))).toEqual([ids[2]]);
    for (const table of ["pointValues", "metricValues", "connectLogs", "controlLogs"] as const)
      expect(await count(store, table), table).toBe(1);
  });

  it("counts a value's age from its arrival, not from the time the device claimed", async () => {
    const { store } = await engine.open();
    await addValues(store, NEW, OLD); // a device clock far behind
    const counts = await sweeper(store).sweep(NOW);
    expect(counts.pointValues).toBe(0);
    expect(await count(store, "pointValues")).toBe(1);
  });

  it("keeps events the data pipeline has not gone through yet, however old", async () => {
    const { store } = await engine.open();
    const ids = await addEvents(store, [OLD, OLD, OLD, OLD]);
    await setCursor(store, ids[1]!);
    const counts = await sweeper(store, { batchRows: 1 }).sweep(NOW);
    expect(counts.deviceEvents).toBe(2);
    const left = await store.db.selectFrom("deviceEvents").select("id").orderBy("id").execute();
    expect(left.map((e) => Number(e.id))).toEqual(ids.slice(2));
  });

  it("keeps every event while the data pipeline has never run (no cursor yet)", async () => {
    const { store } = await engine.open();
    await addEvents(store, [OLD, OLD]);
    expect((await sweeper(store).sweep(NOW)).deviceEvents).toBe(0);
    expect(await count(store, "deviceEvents")).toBe(2);
  });

  it("keeps commands still waiting for delivery, however old, and goes on past them", async () => {
    const { store } = await engine.open();
    await addControlLog(store, OLD, 1);
    await addControlLog(store, OLD, 0);
    await addControlLog(store, OLD, 3);
    const counts = await sweeper(store, { batchRows: 1 }).sweep(NOW);
    expect(counts.controlLogs).toBe(2);
    const left = await store.db.selectFrom("controlLogs").select("publishStatus").execute();
    expect(left).toEqual([{ publishStatus: 1 }]);
  });

  it("deletes at most batchRows rows per statement and goes on until every expired row is gone", async () => {
    const { store } = await engine.open();
    await addConnectLogs(store, [...Array<number>(2_500).fill(OLD), ...Array<number>(5).fill(NEW)]);
    const statements = vi.spyOn(DeleteQueryBuilder.prototype, "executeTakeFirst"); // still runs them
    let deletes: number[];
    try {
      const counts = await sweeper(store, { batchRows: 1_000 }).sweep(NOW);
      expect(counts.connectLogs).toBe(2_500);
      const results = await Promise.all(statements.mock.results.map((r) => r.value as Promise<DeleteResult>));
      deletes = results.map((r) => Number(r.numDeletedRows));
    } finally {
      statements.mockRestore();
    }
    expect(Math.max(...deletes)).toBe(1_000);
    expect(deletes.filter((n) => n > 0)).toEqual([1_000, 1_000, 500]);
    expect(await count(store, "connectLogs")).toBe(5);
  });

  it("lets uplinks be stored while a long sweep is under way", async () => {
    const { store } = await engine.open({ batchMaxDelayMs: 1 });
    const ids = await addEvents(store, Array<number>(3_000).fill(OLD));
    await setCursor(store, ids.at(-1)!);
    let swept = false;
    const sweep = sweeper(store, { batchRows: 50, pauseMs: 5 })
      .sweep(NOW)
      .then((counts) => ((swept = true), counts));
    await expect.poll(() => count(store, "deviceEvents")).toBeLessThan(3_000); // the sweep is under way
    const outcome = await store.uplinks.write({
      msgKey: "live:1",
      tenantId: "t1",
      deviceIntId: 1,
      gatewayIntId: null,
      topic: "up",
      payload: new Uint8Array([2]),
      ip: null,
      qos: 1,
      msgTime: NOW,
    });
    expect(outcome).toBe("stored");
    expect(swept).toBe(false);
    expect((await sweep).deviceEvents).toBe(3_000);
    const left = await store.db.selectFrom("deviceEvents").select("msgKey").execute();
    expect(left).toEqual([{ msgKey: "live:1" }]);
  });

  it("sweeps on its own after the first delay and again every interval until stopped", async () => {
    const { store } = await engine.open();
    const swept: RetentionCounts[] = [];
    const retention = sweeper(store, { firstDelayMs: 10, intervalMs: 30, onSwept: (c) => swept.push(c) });
    await addConnectLogs(store, [Date.now() - 100 * DAY]);
    retention.start();
    await vi.waitFor(() => expect(swept).toHaveLength(1), { timeout: 2_000 });
    await addConnectLogs(store, [Date.now() - 100 * DAY]);
    await vi.waitFor(() => expect(swept).toHaveLength(2), { timeout: 2_000 });
    await retention.stop();
    await addConnectLogs(store, [Date.now() - 100 * DAY]);
    await quietFor(100, "a sweeper left running (every 30 ms) would sweep within this");
    expect(swept.map((c) => c.connectLogs)).toEqual([1, 1]);
    expect(await count(store, "connectLogs")).toBe(1);
  });

  it("deletes nothing when retention is 0 (keep forever)", async () => {
    const { store } = await engine.open();
    await addConnectLogs(store, [0]);
    const retention = sweeper(store, { retentionDays: 0, firstDelayMs: 1 });
    retention.start();
    await quietFor(50, "a sweep started with a 1 ms first delay would have run within this");
    await retention.stop();
    expect((await retention.sweep(NOW)).connectLogs).toBe(0);
    expect(await count(store, "connectLogs")).toBe(1);
  });
});
