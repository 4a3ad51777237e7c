import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { createUplinkCounts } from "../uplink-counts-table.js";

/** 0024: the tenants' uplink counts (uplink-counts-table.ts). */
export const uplinkCounts: Migration = {
  async up(db: Kysely<unknown>) {
    await createUplinkCounts(db, { id: "integer primary key autoincrement", n: "integer" });
  },
  async down(db: Kysely<unknown>) {
    await sql`drop table uplink_counts`.execute(db);
  },
};
