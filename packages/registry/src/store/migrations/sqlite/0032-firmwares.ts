import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { createFirmwares } from "../firmwares-table.js";

/** 0032: firmware packages (firmwares-table.ts). */
export const firmwares: Migration = {
  async up(db: Kysely<unknown>) {
    await createFirmwares(db, { key: "integer primary key autoincrement", id: "integer" });
  },
  async down(db: Kysely<unknown>) {
    await sql`drop table firmwares`.execute(db);
  },
};
