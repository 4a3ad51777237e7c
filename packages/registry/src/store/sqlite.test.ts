import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import BetterSqlite3 from "better-sqlite3";
import { openStore } from "./open-store.js";
import { cachingStatements } from "./sqlite.js";

const root = mkdtempSync(join(tmpdir(), "iot-sqlite-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("SQLite store", () => {
  it("creates a missing data directory and iot.db inside it", async () => {
    const dataDir = join(root, "a", "b");
    const store = await openStore({ dataDir });
    await store.close();
    expect(store.engine).toBe("sqlite");
    expect(existsSync(join(dataDir, "iot.db"))).toBe(true);
  });

  it("reports a full database as SQLITE_FULL from a transaction, not as the failed rollback after it", async () => {
    const db = new Kysely<any>({
      dialect: new SqliteDialect({ database: cachingStatements(new BetterSqlite3(join(root, "full.db"))) }),
    });
    try {
      await sql`create table t (v blob)`.execute(db);
      const pages = Object.values((await sql.raw("pragma page_count").execute(db)).rows[0] as object)[0] as number;
      // The file may not grow: the insert of a large value fails as on a full disk.
      await sql.raw(`pragma max_page_count = ${pages}`).execute(db);
      const big = Buffer.alloc(1_000_000);
      const failed = db.transaction().execute((trx) => sql`insert into t values (${big})`.execute(trx));
      await expect(failed).rejects.toMatchObject({ code: "SQLITE_FULL" });
      // And the connection works afterwards.
      expect((await sql`select count(*) as n from t`.execute(db)).rows).toEqual([{ n: 0 }]);
    } finally {
      await db.destroy();
    }
  });

  it("runs in WAL mode with synchronous FULL, a busy timeout and foreign keys on", async () => {
    const store = await openStore({ dataDir: join(root, "pragmas") });
    try {
      const value = async (name: string) =>
        Object.values((await sql.raw(`pragma ${name}`).execute(store.db)).rows[0] as object)[0];
      expect(await value("journal_mode")).toBe("wal");
      expect(await value("synchronous")).toBe(2); // FULL
      expect(await value("busy_timeout")).toBeGreaterThan(0);
      expect(await value("foreign_keys")).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("keeps synchronous FULL for every other transaction after an uplink batch committed with a WAL sync", async () => {
    const store = await openStore({ dataDir: join(root, "wal-sync") });
    try {
      const outcome = await store.uplinks.write({
        msgKey: "a:1",
        tenantId: "t1",
        deviceIntId: 1,
        gatewayIntId: null,
        topic: "up",
        payload: new Uint8Array([1]),
        ip: null,
        qos: 1,
        msgTime: 1,
      });
      expect(outcome).toBe("stored");
      const rows = (await sql.raw("pragma synchronous").execute(store.db)).rows;
      expect(Object.values(rows[0] as object)[0]).toBe(2); // FULL
    } finally {
      await store.close();
    }
  });

  it("treats an empty database URL as SQLite", async () => {
    const store = await openStore({ dataDir: join(root, "empty-url"), databaseUrl: "" });
    await store.close();
    expect(store.engine).toBe("sqlite");
  });

  it("rejects a database URL of an engine it does not support", async () => {
    await expect(openStore({ dataDir: root, databaseUrl: "mysql://u:secret@h/db" })).rejects.toThrow(
      /unsupported database URL/,
    );
  });
});

describe("SQLite statement cache", () => {
  it("prepares each SQL text once, keeps the most recently used, and still answers right", () => {
    const db = new BetterSqlite3(":memory:");
    const cached = cachingStatements(db, 2);
    const one = cached.prepare("select 1 as v");
    expect(cached.prepare("select 1 as v")).toBe(one);
    const two = cached.prepare("select 2 as v");
    cached.prepare("select 1 as v"); // used again: "select 2" is now the oldest
    cached.prepare("select 3 as v");
    expect(cached.prepare("select 1 as v")).toBe(one);
    expect(cached.prepare("select 2 as v")).not.toBe(two);
    expect((cached.prepare("select ? + 1 as v") as BetterSqlite3.Statement).get(41)).toEqual({ v: 42 });
    cached.close();
  });
});
