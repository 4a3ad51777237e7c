import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Migrator } from "kysely/migration";
import { afterEach, describe, expect, it } from "vitest";
import { openSqlite } from "../../sqlite.js";
import { sqliteMigrations } from "./index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const log = (id: number, deviceIntId: number) => ({
  id,
  tenantId: "t",
  deviceIntId,
  groupIntId: null,
  topic: "inbox",
  payload: `p${id}`,
  qos: 1,
  publishStatus: 2,
  userIntId: 1,
  publishUser: "a",
  expiresAt: 9,
  createAt: 1,
  updateAt: null,
});

describe("SQLite migration 0004-tasks", () => {
  it("rebuilds control_logs keeping every row and the id counter, with device_int_id now optional", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mig-0004-"));
    dirs.push(dir);
    const db = openSqlite(dir);
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ ...sqliteMigrations }) } });
      expect((await migrator.migrateTo("0003-data-model")).error).toBeUndefined();
      await db
        .insertInto("controlLogs")
        .values([log(1, 10), log(2, 11), log(3, 12)])
        .execute();
      await db.deleteFrom("controlLogs").where("id", "=", 3).execute(); // the counter stays at 3

      const up = await migrator.migrateTo("0004-tasks");
      expect(up.error).toBeUndefined();
      expect(up.results?.map((r) => [r.migrationName, r.status])).toEqual([["0004-tasks", "Success"]]);

      const kept = await db.selectFrom("controlLogs").selectAll().orderBy("id").execute();
      expect(kept).toEqual([
        { ...log(1, 10), taskIntId: null },
        { ...log(2, 11), taskIntId: null },
      ]);
      const added = await db
        .insertInto("controlLogs")
        .values({ ...log(0, 0), id: undefined, deviceIntId: null, groupIntId: 5 })
        .returning("id")
        .executeTakeFirstOrThrow();
      expect(added.id).toBe(4);
      const table = (await db.introspection.getTables()).find((t) => t.name === "control_logs");
      expect(table?.columns.find((c) => c.name === "device_int_id")?.isNullable).toBe(true);
    } finally {
      await db.destroy();
    }
  });
});
