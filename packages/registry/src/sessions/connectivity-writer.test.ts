import pino from "pino";
import { Kysely, type Compilable, type CompiledQuery, type QueryResult } from "kysely";
import { quietFor } from "@iot/config/testing";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createDevice } from "../domain/devices.js";
import { createProduct } from "../domain/products.js";
import { twoTenants } from "../domain/test-tenants.js";
import type { Database } from "../store/schema.js";
import { engines } from "../store/test-engines.js";
import { ConnectivityWriter, type SessionEvent } from "./connectivity-writer.js";
import { readEvents } from "../northbound/events.js";
import { SessionTable, type AdapterLink, type LiveSession } from "./session-table.js";
import { commitIsDurable, type BatchDurability } from "../store/batch-durability.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const link: AdapterLink = {
  instanceId: "a",
  protocol: 1,
  version: "t",
  attachedAt: 0,
  sendDownlink: () => {},
  kick: () => {},
  updatePolicies: () => {},
  updateSubscriptions: () => {},
  updateRetained: () => {},
  updateTenantLimits: () => {},
};

describe.each(engines)("ConnectivityWriter on $name", (engine) => {
  async function setup(deviceCount = 1) {
    const { db, caller } = await twoTenants(engine);
    const product = await createProduct(db, caller, { productName: "Meter", cloudProtocol: 1 });
    const ids: number[] = [];
    for (let i = 0; i < deviceCount; i++)
      ids.push(
        (
          await createDevice(db, caller, {
            productId: product.productId,
            deviceName: `d${i}`,
            upLinkSystem: 1,
            authType: 1,
          })
        ).id,
      );
    const table = new SessionTable();
    table.attach(link);
    const writer = new ConnectivityWriter(db, (id) => table.latestSession(id), pino({ level: "silent" }));
    const session = (sessionId: string, deviceIntId: number, clientIp = "1.2.3.4"): LiveSession => ({
      sessionId,
      deviceIntId,
      tenantId: caller.tenantId,
      clientIp,
      keepAlive: 30,
      openedAt: 1000,
      credentialStamp: "",
    });
    const event = (kind: SessionEvent["kind"], s: LiveSession): SessionEvent => ({
      kind,
      deviceIntId: s.deviceIntId,
      sessionId: s.sessionId,
      ip: s.clientIp,
      keepAlive: s.keepAlive,
      at: 2000,
    });
    const state = (id: number) =>
      db
        .selectFrom("devices")
        .select(["deviceStatus", "clientIp", "keepAlive"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
    const logs = (id: number) =>
      db
        .selectFrom("connectLogs")
        .select("connectStatus")
        .where("deviceIntId", "=", id)
        .orderBy("id")
        .execute()
        .then((rows) => rows.map((r) => r.connectStatus));
    return { db, ids, table, writer, session, event, state, logs };
  }

  it("stores a device online with its session's address while a session of it is live, offline after", async () => {
    const { ids, table, writer, session, event, state, logs } = await setup();
    const s = session("s1", ids[0]!);
    table.open("a", s);
    writer.record(event("opened", s));
    await writer.flush();
    expect(await state(ids[0]!)).toEqual({ deviceStatus: 1, clientIp: "1.2.3.4", keepAlive: 30 });
    table.close("a", "s1");
    writer.record(event("closed", s));
    await writer.flush();
    expect(await state(ids[0]!)).toMatchObject({ deviceStatus: 0, clientIp: null });
    expect(await logs(ids[0]!)).toEqual([1, 0]);
  });

  it("reports each connect log as an online or offline event in the same write", async () => {
    const { db, ids, table, writer, session, event } = await setup();
    const s = session("s1", ids[0]!);
    table.open("a", s);
    writer.record(event("opened", s));
    await writer.flush();
    table.close("a", "s1");
    writer.record({ ...event("closed", s), reason: "keepalive timeout" });
    await writer.flush();
    const events = await readEvents(db, { afterId: 0, limit: 10 });
    expect(events.map((e) => [e.type, e.data.sessionId, e.data.ip])).toEqual([
      ["online", "s1", "1.2.3.4"],
      ["offline", "s1", "1.2.3.4"],
    ]);
    expect(events[1]!.data.reason).toBe("keepalive timeout");
  });

  it("keeps a device online when one of its two sessions closes, whatever order the events came in", async () => {
    const { ids, table, writer, session, event, state, logs } = await setup();
    const older = session("old", ids[0]!, "1.1.1.1");
    const newer = session("new", ids[0]!, "2.2.2.2");
    table.open("a", older);
    table.open("a", newer);
    table.close("a", "old");
    // The takeover's close is written after the new session's open, in the same batch.
    writer.record(event("opened", newer));
    writer.record(event("closed", older));
    await writer.flush();
    expect(await state(ids[0]!)).toEqual({ deviceStatus: 1, clientIp: "2.2.2.2", keepAlive: 30 });
    expect(await logs(ids[0]!)).toEqual([1, 0]);
  });

  it("stores a device sleeping (2) while its session's device sleeps and online when it wakes, with no connect log", async () => {
    const { ids, table, writer, session, event, state, logs } = await setup();
    const s = session("q1", ids[0]!);
    table.open("a", s);
    writer.record(event("opened", s));
    await writer.flush();
    table.setSleeping("a", "q1", true);
    writer.record(event("state", s));
    await writer.flush();
    expect(await state(ids[0]!)).toMatchObject({ deviceStatus: 2, clientIp: "1.2.3.4" });
    // A sleeping device re-announced after an adapter outage is not logged again.
    writer.record(event("announced", s));
    await writer.flush();
    table.setSleeping("a", "q1", false);
    writer.record(event("state", s));
    await writer.flush();
    expect(await state(ids[0]!)).toMatchObject({ deviceStatus: 1 });
    expect(await logs(ids[0]!)).toEqual([1]);
  });

  it("logs a re-announced session only for a device stored offline", async () => {
    const { ids, table, writer, session, event, logs } = await setup(2);
    const [on, off] = [session("on", ids[0]!), session("off", ids[1]!)];
    table.open("a", on);
    writer.record(event("opened", on));
    await writer.flush();
    table.open("a", off);
    writer.record(event("announced", on));
    writer.record(event("announced", off));
    await writer.flush();
    expect(await logs(ids[0]!)).toEqual([1]);
    expect(await logs(ids[1]!)).toEqual([1]);
  });

  it("writes a burst larger than one batch completely", async () => {
    const { ids, table, writer, session, event, state, logs } = await setup(3);
    for (let i = 0; i < 1200; i++) {
      const s = session(`s${i}`, ids[i % 3]!);
      if (i >= 1197) table.open("a", s);
      writer.record(event(i % 2 === 0 ? "opened" : "closed", s));
    }
    await writer.flush();
    const counts = await Promise.all(ids.map((id) => logs(id).then((l) => l.length)));
    expect(counts).toEqual([400, 400, 400]);
    for (const id of ids) expect((await state(id)).deviceStatus).toBe(1);
  });

  it("writes a steady stream of events in a few transactions, not one per event or two", async () => {
    const { db, ids, table, writer, session, event, logs } = await setup(1);
    let transactions = 0;
    const transaction = db.transaction.bind(db);
    db.transaction = () => {
      transactions++;
      return transaction();
    };
    // 50 events 2 ms apart (a storm of 500 connects/s): the events that come while a batch is written wait for the
    // next, 25 ms later, instead of each small group getting a transaction of its own.
    for (let i = 0; i < 50; i++) {
      const s = session(`s${i}`, ids[0]!);
      table.open("a", s);
      writer.record(event("opened", s));
      await quietFor(2, "events 2 ms apart, as in a storm of connects");
    }
    await writer.flush();
    expect(await logs(ids[0]!)).toHaveLength(50);
    expect(transactions).toBeLessThanOrEqual(10);
  });

  it("stores the devices of a batch online with one UPDATE, each with its own session's state", async () => {
    const { ids, table, writer, session, event, state } = await setup(12);
    const updates: string[] = [];
    // The statements run on the writer's transaction (reusable and raw queries go through executeQuery).
    const original = Object.getOwnPropertyDescriptor(Kysely.prototype, "executeQuery")!.value as (
      this: Kysely<Database>,
      q: CompiledQuery | Compilable,
    ) => Promise<QueryResult<unknown>>;
    const spy = vi.spyOn(Kysely.prototype, "executeQuery").mockImplementation(function (this: Kysely<Database>, q) {
      const text = "sql" in q ? q.sql : q.compile().sql;
      if (/^update "?devices"? set/i.test(text)) updates.push(text);
      return original.call(this, q);
    });
    try {
      ids.forEach((id, i) => {
        const s = { ...session(`s${i}`, id, `10.0.0.${i}`), keepAlive: i, sleeping: i === 3 };
        table.open("a", s);
        writer.record(event("opened", s));
      });
      await writer.flush();
    } finally {
      spy.mockRestore();
    }
    expect(updates).toHaveLength(1);
    for (const [i, id] of ids.entries())
      expect(await state(id)).toEqual({ deviceStatus: i === 3 ? 2 : 1, clientIp: `10.0.0.${i}`, keepAlive: i });
  });

  it("commits each batch through the store's durability and waits for its sync before the next", async () => {
    const { db, ids, table, session, event, logs } = await setup(1);
    const calls: string[] = [];
    let releaseSync: () => void = () => {};
    const durability: BatchDurability = {
      transaction: (d, work) => {
        calls.push("transaction");
        return commitIsDurable.transaction(d, work);
      },
      sync: () => {
        calls.push("sync");
        return new Promise<void>((resolve) => (releaseSync = resolve));
      },
      close: () => Promise.resolve(),
    };
    const writer = new ConnectivityWriter(
      db,
      (id) => table.latestSession(id),
      pino({ level: "silent" }),
      undefined,
      durability,
    );
    const s = session("s1", ids[0]!);
    table.open("a", s);
    writer.record(event("opened", s));
    let flushed = false;
    const flushing = writer.flush().then(() => (flushed = true));
    await vi.waitFor(() => expect(calls).toEqual(["transaction", "sync"]));
    // Committed (readable) before its sync settles; flush waits for the sync.
    expect(await logs(ids[0]!)).toEqual([1]);
    writer.record(event("closed", s));
    await quietFor(60, "a flush that did not wait for the sync would settle within this");
    expect(flushed).toBe(false);
    expect(calls).toEqual(["transaction", "sync"]);
    releaseSync();
    await vi.waitFor(() => expect(calls).toEqual(["transaction", "sync", "transaction", "sync"]));
    releaseSync();
    await flushing;
    expect(await logs(ids[0]!)).toEqual([1, 0]);
  });
});
