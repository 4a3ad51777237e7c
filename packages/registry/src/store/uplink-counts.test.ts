import { Migrator } from "kysely/migration";
import { quietFor } from "@iot/config/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Caller } from "../domain/caller.js";
import { createDevice, deleteDevices } from "../domain/devices.js";
import { listDeviceEvents } from "../domain/logs.js";
import { createProduct } from "../domain/products.js";
import { twoTenants } from "../domain/test-tenants.js";
import { PIPELINE_CURSOR_KEY } from "./pipeline-cursor-key.js";
import { migrationsFor } from "./migrations/migrate.js";
import { RetentionSweeper } from "./retention.js";
import type { Store } from "./store.js";
import { engines } from "./test-engines.js";
import {
  addUplinkCounts,
  foldUplinkCounts,
  reconcileUplinkCounts,
  recountUplinks,
  tenantUplinkCount,
  UplinkCountFolder,
} from "./uplink-counts.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);

describe.each(engines)("tenants' uplink counts on $name", (engine) => {
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  async function fleet() {
    const { store, db, caller, other, place } = await twoTenants(engine);
    const deviceOf = async (c: Caller, name: string) => {
      const product = await createProduct(db, c, { productName: `P ${name}`, cloudProtocol: 1 });
      return createDevice(db, c, { productId: product.productId, deviceName: name, upLinkSystem: 1, authType: 1 });
    };
    let seq = 0;
    const write = (c: Caller, deviceIntId: number, msgTime = NOW, msgKey = `a:${++seq}`) =>
      store.uplinks.write({
        msgKey,
        tenantId: c.tenantId,
        deviceIntId,
        gatewayIntId: null,
        topic: "up",
        payload: Buffer.from("x"),
        ip: null,
        qos: 1,
        msgTime,
      });
    /** What the list says, and what counting the rows it shows says. */
    const counts = async (c: Caller) => {
      const listed = (await listDeviceEvents(db, c, { page: 1, limit: 10 })).count;
      const joined = await db
        .selectFrom("deviceEvents as e")
        .innerJoin("devices as d", "d.id", "e.deviceIntId")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("e.tenantId", "=", c.tenantId)
        .executeTakeFirstOrThrow();
      return { listed, rows: Number(joined.n) };
    };
    return { store, db, caller, other, place, deviceOf, write, counts };
  }

  it("counts each tenant's uplinks as they are stored, a replay once, none of another tenant's", async () => {
    const { caller, other, deviceOf, write, counts } = await fleet();
    const mine = await deviceOf(caller, "m1");
    const theirs = await deviceOf(other, "o1");
    await Promise.all([...Array.from({ length: 30 }, () => write(caller, mine.id)), write(other, theirs.id)]);
    await write(caller, mine.id, NOW, "a:1");
    await write(caller, mine.id);
    expect(await counts(caller)).toEqual({ listed: 31, rows: 31 });
    expect(await counts(other)).toEqual({ listed: 1, rows: 1 });
  });

  it("counts the rows of a filtered list, never the tenant's kept count", async () => {
    const { db, caller, deviceOf, write } = await fleet();
    const [one, two] = [await deviceOf(caller, "f1"), await deviceOf(caller, "f2")];
    await Promise.all([...Array.from({ length: 3 }, () => write(caller, one.id)), write(caller, two.id)]);
    const countOf = async (filter: Parameters<typeof listDeviceEvents>[3]) =>
      (await listDeviceEvents(db, caller, { page: 1, limit: 10 }, filter)).count;
    expect(await countOf({})).toBe(4);
    expect(await countOf({ deviceNameLike: "" })).toBe(4);
    expect(await countOf({ deviceIntId: one.id })).toBe(3);
    expect(await countOf({ gatewayIntId: two.id })).toBe(1);
    expect(await countOf({ deviceNameLike: "f2" })).toBe(1);
    expect(await countOf({ deviceIdLike: two.deviceId })).toBe(1);
    expect(await countOf({ topicLike: "nothing" })).toBe(0);
  });

  it("takes a deleted device's uplinks out of its tenant's count, as the list hides them", async () => {
    const { db, caller, deviceOf, write, counts } = await fleet();
    const [kept, gone, alsoGone] = [
      await deviceOf(caller, "k"),
      await deviceOf(caller, "g1"),
      await deviceOf(caller, "g2"),
    ];
    for (let i = 0; i < 5; i++)
      await Promise.all([write(caller, kept.id), write(caller, gone.id), write(caller, alsoGone.id)]);
    expect(await counts(caller)).toEqual({ listed: 15, rows: 15 });
    await deleteDevices(db, caller, [gone.id, alsoGone.id]);
    expect(await counts(caller)).toEqual({ listed: 5, rows: 5 });
    // A device without uplinks leaves the count as it is.
    const idle = await deviceOf(caller, "idle");
    await deleteDevices(db, caller, [idle.id]);
    expect(await counts(caller)).toEqual({ listed: 5, rows: 5 });
  });

  it("takes what retention deletes out of the count, a deleted device's uplinks only once", async () => {
    const { store, db, caller, deviceOf, write, counts } = await fleet();
    const [kept, gone] = [await deviceOf(caller, "k"), await deviceOf(caller, "g")];
    const old = NOW - 100 * DAY;
    for (let i = 0; i < 4; i++) await Promise.all([write(caller, kept.id, old), write(caller, gone.id, old)]);
    await Promise.all([write(caller, kept.id), write(caller, gone.id)]);
    await deleteDevices(db, caller, [gone.id]);
    expect(await counts(caller)).toEqual({ listed: 5, rows: 5 });
    await markProcessed(store);
    const swept = await new RetentionSweeper(db, { retentionDays: 90, pauseMs: 0, batchRows: 3 }).sweep(NOW);
    expect(swept.deviceEvents).toBe(8);
    expect(await counts(caller)).toEqual({ listed: 1, rows: 1 });
  });

  it("folds a tenant's rows into one, keeping the count", async () => {
    const { db, caller, other, deviceOf, write, counts } = await fleet();
    const [mine, theirs] = [await deviceOf(caller, "m"), await deviceOf(other, "o")];
    for (let i = 0; i < 6; i++) await write(caller, mine.id);
    await write(other, theirs.id);
    await deleteDevices(db, caller, [(await deviceOf(caller, "x")).id]);
    const rowsOf = async (tenantId: string) =>
      (await db.selectFrom("uplinkCounts").select("n").where("tenantId", "=", tenantId).execute()).length;
    expect(await rowsOf(caller.tenantId)).toBe(6);
    expect(await foldUplinkCounts(db)).toBe(5);
    expect([await rowsOf(caller.tenantId), await rowsOf(other.tenantId)]).toEqual([1, 1]);
    expect(await counts(caller)).toEqual({ listed: 6, rows: 6 });
    expect(await counts(other)).toEqual({ listed: 1, rows: 1 });
    expect(await foldUplinkCounts(db)).toBe(0);
  });

  it("folds on its own every intervalMs once started, and no more once stopped", async () => {
    const { db, caller, deviceOf, write } = await fleet();
    const device = await deviceOf(caller, "d");
    const rows = async () => (await db.selectFrom("uplinkCounts").select("n").execute()).length;
    const folder = new UplinkCountFolder(db, { intervalMs: 20 });
    folder.start();
    for (let i = 0; i < 3; i++) await write(caller, device.id);
    await expect.poll(rows).toBe(1);
    await folder.stop();
    for (let i = 0; i < 3; i++) await write(caller, device.id);
    await quietFor(60, "a folder left running (every 20 ms) would fold within this");
    expect(await rows()).toBe(4);
  });

  it("counts uplinks inserted other than by the writer once recounted", async () => {
    const { db, caller, deviceOf, write, counts } = await fleet();
    const device = await deviceOf(caller, "d");
    await write(caller, device.id);
    await db
      .insertInto("deviceEvents")
      .values(
        [1, 2, 3].map((n) => ({
          tenantId: caller.tenantId,
          deviceIntId: device.id,
          topic: "up",
          payload: new Uint8Array([n]),
          qos: 0,
          msgTime: NOW,
          createAt: NOW,
          msgKey: `direct:${n}`,
        })),
      )
      .execute();
    expect(await counts(caller)).toEqual({ listed: 1, rows: 4 });
    await recountUplinks(db);
    expect(await counts(caller)).toEqual({ listed: 4, rows: 4 });
    expect(await tenantUplinkCount(db, "nobody")).toBe(0);
  });

  it("reconciles a tenant's sum that drifted from its rows, reports the correction, and leaves right ones alone", async () => {
    const { db, caller, other, deviceOf, write, counts } = await fleet();
    const [mine, theirs] = [await deviceOf(caller, "m"), await deviceOf(other, "o")];
    for (let i = 0; i < 3; i++) await Promise.all([write(caller, mine.id), write(other, theirs.id)]);
    // What a race leaves: a delta no row stands for.
    await db.insertInto("uplinkCounts").values({ tenantId: caller.tenantId, n: 2 }).execute();
    expect(await counts(caller)).toEqual({ listed: 5, rows: 3 });
    expect(await reconcileUplinkCounts(db)).toEqual(new Map([[caller.tenantId, -2]]));
    expect(await counts(caller)).toEqual({ listed: 3, rows: 3 });
    expect(await counts(other)).toEqual({ listed: 3, rows: 3 });
    expect(await reconcileUplinkCounts(db)).toEqual(new Map());
  });

  if (engine.name === "postgres")
    it("puts right what an uplink committed while its device was being deleted left counted", async () => {
      const { db, caller, deviceOf, write, counts } = await fleet();
      const [kept, gone] = [await deviceOf(caller, "k"), await deviceOf(caller, "g")];
      await write(caller, kept.id);
      // An uplink batch's transaction, open while another transaction deletes its device: the deletion counts the
      // uplinks it sees, so this one is counted by its batch and never taken out.
      let inserted = () => {};
      let release = () => {};
      const insertedYet = new Promise<void>((r) => (inserted = r));
      const held = new Promise<void>((r) => (release = r));
      const batch = db.transaction().execute(async (tx) => {
        await tx
          .insertInto("deviceEvents")
          .values({
            tenantId: caller.tenantId,
            deviceIntId: gone.id,
            topic: "up",
            payload: new Uint8Array([1]),
            qos: 1,
            msgTime: NOW,
            createAt: NOW,
            msgKey: "racing",
          })
          .execute();
        await addUplinkCounts(tx, new Map([[caller.tenantId, 1]]));
        inserted();
        await held;
      });
      await insertedYet;
      await deleteDevices(db, caller, [gone.id]);
      release();
      await batch;
      expect(await counts(caller)).toEqual({ listed: 2, rows: 1 });
      const reported: Array<ReadonlyMap<string, number>> = [];
      const folder = new UplinkCountFolder(db, {
        intervalMs: 20,
        reconcileIntervalMs: 1,
        onReconciled: (c) => reported.push(c),
      });
      folder.start();
      await expect.poll(async () => (await counts(caller)).listed).toBe(1);
      await folder.stop();
      expect(reported).toEqual([new Map([[caller.tenantId, -1]])]);
    });

  it("fills the counts from the uplinks already stored when migrating to 0024", async () => {
    const { store, db, caller, place, deviceOf, write, counts } = await fleet();
    const [one, two] = [await deviceOf(caller, "one"), await deviceOf(caller, "two")];
    for (let i = 0; i < 3; i++) await Promise.all([write(caller, one.id), write(caller, two.id)]);
    await deleteDevices(db, caller, [two.id]);
    const migrator = new Migrator({
      db: store.db,
      provider: { getMigrations: async () => ({ ...migrationsFor(engine.name) }) },
      ...(engine.name === "postgres" ? { migrationTableSchema: place } : {}),
    });
    expect((await migrator.migrateTo("0023-device-id-trigrams")).error).toBeUndefined();
    expect((await migrator.migrateTo("0024-uplink-counts")).error).toBeUndefined();
    expect(await counts(caller)).toEqual({ listed: 3, rows: 3 });
  });
});

/** Marks every stored uplink as gone through by the data pipeline, which retention waits for. */
async function markProcessed(store: Store): Promise<void> {
  const newest = await store.db
    .selectFrom("deviceEvents")
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirstOrThrow();
  await store.db
    .insertInto("settings")
    .values({ key: PIPELINE_CURSOR_KEY, value: String(newest.id) })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value: String(newest.id) }))
    .execute();
}
