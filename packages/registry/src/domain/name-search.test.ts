import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Migrator, sql, type Kysely } from "kysely";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Database } from "../store/schema.js";
import { openSqlite } from "../store/sqlite.js";
import { sqliteMigrations } from "../store/migrations/sqlite/index.js";
import { engines } from "../store/test-engines.js";
import { listDevices } from "./devices.js";
import { listControlLogs, listDeviceEvents } from "./logs.js";
import { deviceNameConditions, INDEXED_NAME_MATCHES, nameIndexNarrows } from "./name-search.js";
import { createProduct } from "./products.js";
import { twoTenants } from "./test-tenants.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Rows of `names` for the devices table, of `tenantId`. */
function deviceRows(tenantId: string, productIntId: number, names: readonly string[], from = 0) {
  return names.map((deviceName, i) => ({
    tenantId,
    userIntId: 1,
    productIntId,
    deviceId: `d${from + i}`,
    deviceName,
    deviceUsername: `u${from + i}`,
    token: `t${from + i}`,
    authType: 1,
    deviceType: 1,
    blocked: 0,
    deviceStatus: 0,
    createAt: 1_000 + from + i,
    updateAt: null,
  }));
}

describe.each(engines)("device name search on $name", (engine) => {
  /** The caller's tenant with devices of `names`, and the other tenant with a device of each name too. */
  async function tenantWith(names: readonly string[]) {
    const { store, caller, other } = await twoTenants(engine);
    const theirs = await createProduct(store.db, other, { productName: "Theirs", cloudProtocol: 1 });
    if (names.length > 0)
      await store.db
        .insertInto("devices")
        .values(deviceRows(other.tenantId, theirs.id, names, 100_000))
        .execute();
    const product = await createProduct(store.db, caller, { productName: "Meters", cloudProtocol: 1 });
    if (names.length > 0)
      await store.db
        .insertInto("devices")
        .values(deviceRows(caller.tenantId, product.id, names))
        .execute();
    const search = async (text: string) =>
      (await listDevices(store.db, caller, { page: 1, limit: 100 }, { deviceNameLike: text })).items
        .map((d) => d.deviceName)
        .sort();
    return { db: store.db, caller, product, search };
  }

  it("has its index of device names: FTS5 on SQLite, pg_trgm on PostgreSQL when the server has the extension", async () => {
    const { db, search } = await tenantWith(["Alpha unit", "beta unit"]);
    const [expected, found] =
      engine.name === "sqlite"
        ? [true, (await db.introspection.getTables()).some((t) => t.name.startsWith("devices_name_fts"))]
        : await sql<{ available: boolean; indexed: boolean }>`select
              exists (select 1 from pg_available_extensions where name = 'pg_trgm') as available,
              exists (select 1 from pg_indexes where schemaname = current_schema() and indexname = 'devices_name_trgm')
                as indexed`
            .execute(db)
            .then(({ rows }) => [rows[0]!.available, rows[0]!.indexed]);
    expect(found).toBe(expected);
    expect(await search("ALPHA")).toEqual(["Alpha unit"]);
  });

  it("finds the caller's names containing the text whatever its case (none of another tenant's), following renames and deletions", async () => {
    const { db, search } = await tenantWith(["Alpha unit", "second ALPHA", "beta unit", "gamma"]);
    expect(await search("alpha")).toEqual(["Alpha unit", "second ALPHA"]);
    expect(await search("ALPHA U")).toEqual(["Alpha unit"]);
    await db.updateTable("devices").set({ deviceName: "delta unit" }).where("deviceName", "=", "Alpha unit").execute();
    expect(await search("alpha")).toEqual(["second ALPHA"]);
    expect(await search("delta")).toEqual(["delta unit"]);
    await db.deleteFrom("devices").where("deviceName", "=", "second ALPHA").execute();
    expect(await search("alpha")).toEqual([]);
    expect(await search(" unit")).toEqual(["beta unit", "delta unit"]);
  });

  it("takes the user's % and _ literally, and searches of fewer than 3 characters too", async () => {
    const { search } = await tenantWith(["abc%def", "abcXdef", "abc_def", "x%y", "xzy"]);
    expect(await search("abc%def")).toEqual(["abc%def"]);
    expect(await search("c_d")).toEqual(["abc_def"]);
    expect(await search("x%")).toEqual(["x%y"]);
    expect(await search("zy")).toEqual(["xzy"]);
  });

  it("lists the uplinks and commands of the caller's devices named like the text, newest first", async () => {
    const { db, caller } = await tenantWith(["north pump", "south pump", "north meter"]);
    const mine = await db
      .selectFrom("devices")
      .select(["id", "deviceName"])
      .where("tenantId", "=", caller.tenantId)
      .execute();
    const theirs = await db.selectFrom("devices").select(["id"]).where("tenantId", "!=", caller.tenantId).execute();
    const devices = [
      ...mine.map((d) => ({ ...d, tenantId: caller.tenantId })),
      ...theirs.map((d) => ({ ...d, tenantId: "other", deviceName: "" })),
    ];
    await db
      .insertInto("deviceEvents")
      .values(
        devices.flatMap((d, n) =>
          [0, 1].map((i) => ({
            tenantId: d.tenantId,
            deviceIntId: Number(d.id),
            topic: `t/${n}/${i}`,
            payload: new Uint8Array([i]),
            qos: 1,
            msgTime: 5_000 + n * 2 + i,
            createAt: 5_000 + n * 2 + i,
            msgKey: `k${n}-${i}`,
          })),
        ),
      )
      .execute();
    await db
      .insertInto("controlLogs")
      .values(
        devices.map((d, n) => ({
          tenantId: d.tenantId,
          deviceIntId: Number(d.id),
          groupIntId: null,
          topic: `c/${n}`,
          payload: "x",
          qos: 1,
          publishStatus: 2,
          userIntId: 1,
          publishUser: "root",
          expiresAt: 9,
          createAt: 1 + n,
          updateAt: null,
        })),
      )
      .execute();
    const page = { page: 1, limit: 50 };
    const pumps = await listDeviceEvents(db, caller, page, { deviceNameLike: "PUMP" });
    expect(pumps.count).toBe(4);
    expect(pumps.items.map((e) => e.deviceName)).toEqual(["south pump", "south pump", "north pump", "north pump"]);
    expect(pumps.items.map((e) => e.id)).toEqual([...pumps.items.map((e) => e.id)].sort((a, b) => b - a));
    const north = await listControlLogs(db, caller, page, { deviceNameLike: "north " });
    expect(north.count).toBe(2);
    expect(north.items.map((l) => l.deviceName)).toEqual(["north meter", "north pump"]);
    expect((await listDeviceEvents(db, caller, page, { deviceNameLike: "nowhere" })).count).toBe(0);
  });

  it("answers odd search texts without error: only wildcards, quotes, backslashes, emoji, a long text", async () => {
    const { search } = await tenantWith(["a'b\\c", "smile 😀😀 here", "plain"]);
    expect(await search("%_%")).toEqual([]);
    expect(await search("'b\\")).toEqual(["a'b\\c"]);
    expect(await search("😀😀")).toEqual(["smile 😀😀 here"]);
    expect(await search("x".repeat(5000))).toEqual([]);
    expect(await search('"')).toEqual([]);
  });

  it("adds the index's candidates to the exact condition only where the index narrows (SQLite)", async () => {
    const { db } = await tenantWith(["Alpha unit"]);
    const conditions = await deviceNameConditions(db, "alpha", "d.deviceName", "d.id");
    expect(conditions).toHaveLength(engine.name === "sqlite" ? 2 : 1);
    expect(await deviceNameConditions(db, "al", "d.deviceName", "d.id")).toHaveLength(1);
    // Two emoji are 4 UTF-16 units but 2 characters: too short for a trigram.
    expect(await nameIndexNarrows(db, "😀😀")).toBe(false);
  });

  it("narrows by the trigram index only on SQLite, for 3 characters in a row, and not past its match limit", async () => {
    const { db, caller, product, search } = await tenantWith(["meter one", "meter two"]);
    const sqlite = engine.name === "sqlite";
    expect(await nameIndexNarrows(db, "meter")).toBe(sqlite);
    expect(await nameIndexNarrows(db, "me")).toBe(false);
    expect(await nameIndexNarrows(db, "m%e_t")).toBe(false);
    expect(await nameIndexNarrows(db, "nothing like it")).toBe(sqlite);
    if (!sqlite) return;
    const many = Array.from({ length: INDEXED_NAME_MATCHES + 1 }, (_, i) => `pump ${i}`);
    for (let i = 0; i < many.length; i += 500)
      await db
        .insertInto("devices")
        .values(deviceRows(caller.tenantId, product.id, many.slice(i, i + 500), 10 + i))
        .execute();
    expect(await nameIndexNarrows(db, "pump")).toBe(false);
    expect(await nameIndexNarrows(db, "pump 1999")).toBe(true);
    expect(await search("pump 1999")).toEqual(["pump 1999"]);
  });
});

describe("SQLite migration 0022-device-name-trigrams", () => {
  it("indexes the names of devices that existed before it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mig-0022-"));
    dirs.push(dir);
    const db: Kysely<Database> = openSqlite(dir);
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ ...sqliteMigrations }) } });
      expect((await migrator.migrateTo("0021-outbox-uplink-ranges")).error).toBeUndefined();
      await db
        .insertInto("devices")
        .values(deviceRows("t", 1, ["old meter", "old pump"]))
        .execute();
      expect((await migrator.migrateTo("0022-device-name-trigrams")).error).toBeUndefined();
      const found = await db
        .selectFrom("devices")
        .select("deviceName")
        .where("id", "in", (eb) => eb.selectFrom("devicesNameFts" as never).select("rowid" as never))
        .execute();
      expect(found.map((d) => d.deviceName).sort()).toEqual(["old meter", "old pump"]);
      expect(await nameIndexNarrows(db, "d pump")).toBe(true);
      expect((await migrator.migrateDown()).error).toBeUndefined();
      const left = await db.introspection.getTables();
      expect(left.some((t) => t.name.startsWith("devices_name_fts"))).toBe(false);
    } finally {
      await db.destroy();
    }
  });
});
