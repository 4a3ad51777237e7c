import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { Migrator } from "kysely/migration";
import { afterAll, describe, expect, it } from "vitest";
import type { Database } from "../schema.js";
import { migrateSqlite, migrationsFor } from "./migrate.js";

const root = mkdtempSync(join(tmpdir(), "iot-late-migration-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a migration numbered below one a database already ran", () => {
  it("runs at the next start (0031 after 0032): the database gets its column", async () => {
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(join(root, "a.db")) }),
    });
    try {
      const { "0031-lwm2m-bootstrap": late, ...before } = migrationsFor("sqlite");
      expect(late).toBeDefined();
      const earlier = new Migrator({ db, provider: { getMigrations: async () => ({ ...before }) } });
      expect((await earlier.migrateToLatest()).error).toBeUndefined();
      expect(await migrateSqlite(db)).toEqual(["0031-lwm2m-bootstrap"]);
      const columns = await sql<{ name: string }>`pragma table_info(devices)`.execute(db);
      expect(columns.rows.map((c) => c.name)).toContain("lwm2m_bootstrap");
    } finally {
      await db.destroy();
    }
  });
});
