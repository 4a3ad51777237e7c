import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql, type Kysely } from "kysely";
import { Migrator } from "kysely/migration";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Database } from "../store/schema.js";
import { openSqlite } from "../store/sqlite.js";
import { sqliteMigrations } from "../store/migrations/sqlite/index.js";
import { engines } from "../store/test-engines.js";
import { listDevices } from "./list-devices.js";
import { listControlLogs, listDeviceEvents } from "./logs.js";
import { deviceSearchConditions, INDEXED_MATCHES, indexNarrows } from "./device-search.js";
import { createProduct } from "./products.js";
import { twoTenants } from "./test-tenants.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Rows of `names` for the devices table, of `tenantId`, with `ids` for deviceIDs (else `d<n>`). */
function deviceRows(tenantId: string, productIntId: number, names: readonly string[], from = 0, ids?: string[]) {
  return names.map((deviceName, i) => ({
    tenantId,
    userIntId: 1,
    productIntId,
    deviceId: ids?.[i] ?? `d${from + i}`,
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

/** An uplink row of a device, `n` its place in the test's order (its time and key). */
function uplinkRow(tenantId: string, deviceIntId: number, topic: string, n: number) {
  return {
    tenantId,
    deviceIntId,
    topic,
    payload: new Uint8Array([n % 256]),
    qos: 1,
    msgTime: 5_000 + n,
    createAt: 5_000 + n,
    msgKey: `k-${n}`,
  };
}

/** A delivered command row of a device, `n` its place in the test's order. */
function commandRow(tenantId: string, deviceIntId: number, topic: string, n: number) {
  return {
    tenantId,
    deviceIntId,
    groupIntId: null,
    topic,
    payload: "x",
    qos: 1,
    publishStatus: 2,
    userIntId: 1,
    publishUser: "root",
    expiresAt: 9,
    createAt: 1 + n,
    updateAt: null,
  };
}

describe.each(engines)("device name and id search on $name", (engine) => {
  /**
   * The caller's tenant with devices of `names` (and deviceIDs `ids`, else `d<n>`), and the other tenant with a
   * device of each name too (and each id, when given).
   */
  async function tenantWith(names: readonly string[], ids?: string[]) {
    const { store, caller, other } = await twoTenants(engine);
    const theirs = await createProduct(store.db, other, { productName: "Theirs", cloudProtocol: 1 });
    if (names.length > 0)
      await store.db
        .insertInto("devices")
        .values(deviceRows(other.tenantId, theirs.id, names, 100_000, ids))
        .execute();
    const product = await createProduct(store.db, caller, { productName: "Meters", cloudProtocol: 1 });
    if (names.length > 0)
      await store.db
        .insertInto("devices")
        .values(deviceRows(caller.tenantId, product.id, names, 0, ids))
        .execute();
    const search = async (text: string) =>
      (await listDevices(store.db, caller, { page: 1, limit: 100 }, { deviceNameLike: text })).items
        .map((d) => d.deviceName)
        .sort();
    const searchIds = async (text: string) =>
      (await listDevices(store.db, caller, { page: 1, limit: 100 }, { deviceIdLike: text })).items
        .map((d) => d.deviceId)
        .sort();
    return { db: store.db, caller, product, search, searchIds };
  }

  it("has its indexes of device names and ids: FTS5 on SQLite, pg_trgm on PostgreSQL when the server has the extension", async () => {
    const { db, search, searchIds } = await tenantWith(["Alpha unit", "beta unit"], ["AB-1", "cd-2"]);
    for (const [fts, trgm] of [
      ["devices_name_fts", "devices_name_trgm"],
      ["devices_id_fts", "devices_id_trgm"],
    ]) {
      const [expected, found] =
        engine.name === "sqlite"
          ? [true, (await db.introspection.getTables()).some((t) => t.name === fts)]
          : await sql<{ available: boolean; indexed: boolean }>`select
                exists (select 1 from pg_available_extensions where name = 'pg_trgm') as available,
                exists (select 1 from pg_indexes where schemaname = current_schema() and indexname = ${trgm})
                  as indexed`
              .execute(db)
              .then(({ rows }) => [rows[0]!.available, rows[0]!.indexed]);
      expect(found, fts).toBe(expected);
    }
    expect(await search("ALPHA")).toEqual(["Alpha unit"]);
    expect(await searchIds("ab-")).toEqual(["AB-1"]);
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

  it("finds the caller's devices whose id contains the text whatever its case (none of another tenant's), following id changes and deletions", async () => {
    const { db, caller, searchIds } = await tenantWith(
      ["one", "two", "three", "four"],
      ["PUMP-north-1", "pump-south-2", "meter_north-3", "m%x"],
    );
    expect(await searchIds("pump-")).toEqual(["PUMP-north-1", "pump-south-2"]);
    expect(await searchIds("NORTH")).toEqual(["PUMP-north-1", "meter_north-3"]);
    // The user's % and _ are literal, as for names.
    expect(await searchIds("r_n")).toEqual(["meter_north-3"]);
    expect(await searchIds("m%")).toEqual(["m%x"]);
    const mine = db.updateTable("devices").where("tenantId", "=", caller.tenantId);
    await mine.set({ deviceId: "valve-north-9" }).where("deviceId", "=", "PUMP-north-1").execute();
    expect(await searchIds("pump-")).toEqual(["pump-south-2"]);
    expect(await searchIds("valve")).toEqual(["valve-north-9"]);
    await db
      .deleteFrom("devices")
      .where("tenantId", "=", caller.tenantId)
      .where("deviceId", "=", "pump-south-2")
      .execute();
    expect(await searchIds("pump-")).toEqual([]);
    expect(await searchIds("orth-")).toEqual(["meter_north-3", "valve-north-9"]);
  });

  it("lists the devices, uplinks and commands of the caller matching both a name and an id search", async () => {
    const { db, caller, product } = await tenantWith(["north pump", "south pump"], ["np-100", "sp-100"]);
    const both = { deviceNameLike: "pump", deviceIdLike: "sp-1" };
    const devices = await listDevices(db, caller, { page: 1, limit: 10 }, both);
    expect(devices.items.map((d) => d.deviceName)).toEqual(["south pump"]);
    const ids = await db
      .selectFrom("devices")
      .select(["id", "deviceId"])
      .where("tenantId", "=", caller.tenantId)
      .where("productIntId", "=", product.id)
      .execute();
    await db
      .insertInto("deviceEvents")
      .values(ids.map((d, n) => uplinkRow(caller.tenantId, Number(d.id), `t/${d.deviceId}`, n)))
      .execute();
    await db
      .insertInto("controlLogs")
      .values(ids.map((d, n) => commandRow(caller.tenantId, Number(d.id), `c/${d.deviceId}`, n)))
      .execute();
    const page = { page: 1, limit: 10 };
    expect((await listDeviceEvents(db, caller, page, both)).items.map((e) => e.topic)).toEqual(["t/sp-100"]);
    expect((await listDeviceEvents(db, caller, page, { deviceIdLike: "P-100" })).count).toBe(2);
    expect((await listControlLogs(db, caller, page, both)).items.map((l) => l.topic)).toEqual(["c/sp-100"]);
    expect((await listControlLogs(db, caller, page, { deviceIdLike: "np-" })).items.map((l) => l.deviceId)).toEqual([
      "np-100",
    ]);
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
        devices.flatMap((d, n) => [0, 1].map((i) => uplinkRow(d.tenantId, Number(d.id), `t/${n}/${i}`, n * 2 + i))),
      )
      .execute();
    await db
      .insertInto("controlLogs")
      .values(devices.map((d, n) => commandRow(d.tenantId, Number(d.id), `c/${n}`, n)))
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

  it("answers odd search texts of names and ids without error: only wildcards, quotes, backslashes, emoji, a long text", async () => {
    const texts = ["a'b\\c", "smile 😀😀 here", "plain"];
    const { search, searchIds } = await tenantWith(texts, texts);
    for (const find of [search, searchIds]) {
      expect(await find("%_%")).toEqual([]);
      expect(await find("'b\\")).toEqual(["a'b\\c"]);
      expect(await find("😀😀")).toEqual(["smile 😀😀 here"]);
      expect(await find("x".repeat(5000))).toEqual([]);
      expect(await find('"')).toEqual([]);
    }
  });

  it("adds the index's candidates to the exact condition only where the index narrows (SQLite)", async () => {
    const { db } = await tenantWith(["Alpha unit"]);
    const sqlite = engine.name === "sqlite";
    expect(await deviceSearchConditions(db, { deviceNameLike: "alpha" }, "d.id")).toHaveLength(sqlite ? 2 : 1);
    expect(await deviceSearchConditions(db, { deviceNameLike: "al" }, "d.id")).toHaveLength(1);
    expect(await deviceSearchConditions(db, { deviceIdLike: "d0" }, "d.id")).toHaveLength(1);
    expect(await deviceSearchConditions(db, { deviceNameLike: "alp", deviceIdLike: "d00" }, "d.id")).toHaveLength(
      sqlite ? 4 : 2,
    );
    expect(await deviceSearchConditions(db, {}, "d.id")).toEqual([]);
    // Two emoji are 4 UTF-16 units but 2 characters: too short for a trigram.
    expect(await indexNarrows(db, "name", "😀😀")).toBe(false);
  });

  it("narrows by the trigram index only on SQLite, for 3 characters in a row, and not past its match limit", async () => {
    const { db, caller, product, search } = await tenantWith(["meter one", "meter two"]);
    const sqlite = engine.name === "sqlite";
    expect(await indexNarrows(db, "name", "meter")).toBe(sqlite);
    expect(await indexNarrows(db, "name", "me")).toBe(false);
    expect(await indexNarrows(db, "name", "m%e_t")).toBe(false);
    expect(await indexNarrows(db, "name", "nothing like it")).toBe(sqlite);
    if (!sqlite) return;
    const many = Array.from({ length: INDEXED_MATCHES + 1 }, (_, i) => `pump ${i}`);
    for (let i = 0; i < many.length; i += 500)
      await db
        .insertInto("devices")
        .values(deviceRows(caller.tenantId, product.id, many.slice(i, i + 500), 10 + i))
        .execute();
    expect(await indexNarrows(db, "name", "pump")).toBe(false);
    expect(await indexNarrows(db, "name", "pump 1999")).toBe(true);
    // deviceIDs d10…d2010: "d19" is in 111 of them; "d1" is too short for a trigram.
    expect(await indexNarrows(db, "id", "d19")).toBe(true);
    expect(await indexNarrows(db, "id", "d1")).toBe(false);
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
      expect(await indexNarrows(db, "name", "d pump")).toBe(true);
      expect((await migrator.migrateDown()).error).toBeUndefined();
      const left = await db.introspection.getTables();
      expect(left.some((t) => t.name.startsWith("devices_name_fts"))).toBe(false);
    } finally {
      await db.destroy();
    }
  });
});

describe("SQLite migration 0023-device-id-trigrams", () => {
  it("indexes the ids of devices that existed before it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mig-0023-"));
    dirs.push(dir);
    const db: Kysely<Database> = openSqlite(dir);
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ ...sqliteMigrations }) } });
      expect((await migrator.migrateTo("0022-device-name-trigrams")).error).toBeUndefined();
      await db
        .insertInto("devices")
        .values(deviceRows("t", 1, ["a", "b"], 0, ["old-meter-1", "old-pump-2"]))
        .execute();
      expect((await migrator.migrateTo("0023-device-id-trigrams")).error).toBeUndefined();
      const found = await sql<{ deviceId: string }>`select device_id from devices
          where id in (select rowid from devices_id_fts where device_id like '%pump%')`.execute(db);
      expect(found.rows.map((d) => d.deviceId)).toEqual(["old-pump-2"]);
      expect(await indexNarrows(db, "id", "old-")).toBe(true);
      expect((await migrator.migrateDown()).error).toBeUndefined();
      const left = await db.introspection.getTables();
      expect(left.some((t) => t.name.startsWith("devices_id_fts"))).toBe(false);
      expect(left.some((t) => t.name === "devices_name_fts")).toBe(true);
    } finally {
      await db.destroy();
    }
  });
});
