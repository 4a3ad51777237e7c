import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import type { Database } from "../schema.js";
import { migrateSqlite, migrationsFor } from "./migrate.js";

const root = mkdtempSync(join(tmpdir(), "iot-migrate-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A WAL database at synchronous FULL, as the store opens it, logging every statement it runs. */
function database(name: string): { db: Kysely<Database>; statements: string[] } {
  const statements: string[] = [];
  const sqlite = new BetterSqlite3(join(root, name), { verbose: (s) => statements.push(String(s)) });
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = FULL");
  statements.length = 0;
  return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) }), statements };
}

const synchronous = async (db: Kysely<Database>) =>
  (await sql<{ synchronous: number }>`pragma synchronous`.execute(db)).rows[0]!.synchronous;

describe("migrateSqlite", () => {
  it("runs every migration of a fresh database with its commits at synchronous NORMAL, then sets FULL again", async () => {
    const { db, statements } = database("fresh.db");
    try {
      expect(await migrateSqlite(db)).toEqual(Object.keys(migrationsFor("sqlite")));
      expect(statements[0]).toBe("pragma synchronous = NORMAL");
      expect(statements.at(-1)).toBe("pragma synchronous = FULL");
      expect(statements.filter((s) => /^create table/i.test(s)).length).toBeGreaterThan(10);
      expect(await synchronous(db)).toBe(2);
      // A second start finds nothing to do.
      expect(await migrateSqlite(db)).toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it("sets synchronous FULL again when a migration fails, and names the migration", async () => {
    const { db } = database("broken.db");
    try {
      // A table of the first migration's name that is not the first migration's table: its DDL fails.
      await sql`create table devices (x integer)`.execute(db);
      await expect(migrateSqlite(db)).rejects.toThrow(/sqlite migration 0001-initial failed/);
      expect(await synchronous(db)).toBe(2);
    } finally {
      await db.destroy();
    }
  });
});
