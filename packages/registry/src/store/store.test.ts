import { sql } from "kysely";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Store } from "./store.js";
import { engines } from "./test-engines.js";
import { migrationsFor } from "./migrations/migrate.js";

const TABLES = [
  "app_templates",
  "applications",
  "certs",
  "connect_logs",
  "control_logs",
  "data_points",
  "data_stream_points",
  "data_streams",
  "device_certs",
  "device_events",
  "device_point_values",
  "device_policies",
  "devices",
  "group_devices",
  "groups",
  "history_alerts",
  "metric_values",
  "metrics",
  "point_values",
  "policies",
  "product_resources",
  "products",
  "proxy_subscriptions",
  "settings",
  "tenants",
  "users",
];

async function seedDevice(store: Store, deviceId: string, deviceUsername: string, tenantId = "t1") {
  return store.db
    .insertInto("devices")
    .values({
      tenantId,
      userIntId: 1,
      productIntId: 1,
      deviceId,
      deviceName: deviceId,
      deviceUsername,
      token: "tok",
      authType: 1,
      blocked: 0,
      deviceType: 1,
      deviceStatus: 0,
      createAt: Date.now(),
    })
    .returning(["id"])
    .executeTakeFirstOrThrow();
}

describe.each(engines)("store on $name", (engine) => {
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  it("creates every table of the schema when it migrates", async () => {
    const { store } = await engine.open();
    const tables = await store.db.introspection.getTables();
    const names = tables.map((t) => t.name).filter((n) => TABLES.includes(n));
    expect(names.sort()).toEqual(TABLES);
  });

  it("runs no migration twice when an existing database is opened again", async () => {
    const { store, place } = await engine.open();
    await store.db.insertInto("settings").values({ key: "k", value: "v" }).execute();
    await store.close();
    const again = await engine.open({}, place);
    const rows = await again.store.db.selectFrom("settings").selectAll().execute();
    expect(rows).toEqual([{ key: "k", value: "v" }]);
    const ran = await sql<{ name: string }>`select name from kysely_migration`.execute(again.store.db);
    expect(ran.rows.map((r) => r.name)).toEqual(Object.keys(migrationsFor(engine.name)));
  });

  it("maps camelCase properties to snake_case columns both ways", async () => {
    const { store } = await engine.open();
    const { id } = await seedDevice(store, "d1", "user-d1");
    const raw = await sql<{ deviceUsername: string }>`select device_username from devices where id = ${id}`.execute(
      store.db,
    );
    expect(raw.rows).toEqual([{ deviceUsername: "user-d1" }]);
    const row = await store.db
      .selectFrom("devices")
      .select(["deviceId", "modBusIndex", "upLinkSystem"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ deviceId: "d1", modBusIndex: null, upLinkSystem: null });
  });

  it("returns ids, epoch-ms times and counts as numbers", async () => {
    const { store } = await engine.open();
    const createAt = Date.UTC(2030, 0, 1, 12, 0, 0, 123);
    const { id } = await store.db
      .insertInto("tenants")
      .values({ tenantId: "t1", tenantName: "T", enable: 1, createAt })
      .returning("id")
      .executeTakeFirstOrThrow();
    const row = await store.db.selectFrom("tenants").select(["id", "createAt"]).executeTakeFirstOrThrow();
    const { n } = await store.db
      .selectFrom("tenants")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ id, createAt });
    expect(typeof id).toBe("number");
    expect(n).toBe(1);
  });

  it("keeps coordinates as floating-point numbers", async () => {
    const { store } = await engine.open();
    const { id } = await seedDevice(store, "d1", "u1");
    await store.db
      .updateTable("devices")
      .set({ latitude: 48.858370123, longitude: -2.294481 })
      .where("id", "=", id)
      .execute();
    const row = await store.db.selectFrom("devices").select(["latitude", "longitude"]).executeTakeFirstOrThrow();
    expect(row).toEqual({ latitude: 48.858370123, longitude: -2.294481 });
  });

  it("rejects a second device with the same deviceUsername, even in another tenant", async () => {
    const { store } = await engine.open();
    await seedDevice(store, "d1", "shared-name", "t1");
    await expect(seedDevice(store, "d2", "shared-name", "t2")).rejects.toThrow(/unique/i);
    const { n } = await store.db
      .selectFrom("devices")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(n).toBe(1);
  });

  it("rejects a deviceID used twice in one tenant but allows it in another", async () => {
    const { store } = await engine.open();
    await seedDevice(store, "d1", "u1", "t1");
    await expect(seedDevice(store, "d1", "u2", "t1")).rejects.toThrow(/unique/i);
    await expect(seedDevice(store, "d1", "u3", "t2")).resolves.toHaveProperty("id");
  });

  it("enforces unique tenantId, username, email and productID per tenant", async () => {
    const { store } = await engine.open();
    const db = store.db;
    const now = Date.now();
    const tenant = { tenantId: "t1", tenantName: "T", enable: 1, createAt: now };
    const user = (username: string, email: string | null) => ({
      tenantId: "t1",
      username,
      email,
      passwordHash: "x",
      role: "admin",
      serviceAdmin: 0,
      enable: 1,
      createAt: now,
    });
    const product = (tenantId: string) => ({
      tenantId,
      userIntId: 1,
      productId: "p1",
      productName: "P",
      cloudProtocol: 1,
      createAt: now,
    });
    await db.insertInto("tenants").values(tenant).execute();
    await expect(db.insertInto("tenants").values(tenant).execute()).rejects.toThrow(/unique/i);
    await db
      .insertInto("users")
      .values([user("a", "a@x"), user("b", null), user("c", null)])
      .execute();
    await expect(db.insertInto("users").values(user("a", "other@x")).execute()).rejects.toThrow(/unique/i);
    await expect(db.insertInto("users").values(user("d", "a@x")).execute()).rejects.toThrow(/unique/i);
    await db
      .insertInto("products")
      .values([product("t1"), product("t2")])
      .execute();
    await expect(db.insertInto("products").values(product("t1")).execute()).rejects.toThrow(/unique/i);
  });
});
