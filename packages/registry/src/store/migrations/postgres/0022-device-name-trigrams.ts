import { sql, type Kysely, type Migration } from "kysely";
import { trigramOpsSchema } from "./pg-trgm.js";

/**
 * 0022: a trigram index of lowered device names (pg_trgm's GIN operator class), which the planner uses by itself for
 * a `deviceName_like` search (`lower(device_name) like '%…%'`) that finds few devices, as SQLite's 0022 does with an
 * FTS5 table. Without pg_trgm (see `trigramOpsSchema`) this adds nothing and searches scan as before.
 */
export const deviceNameTrigrams: Migration = {
  async up(db: Kysely<unknown>) {
    const schema = await trigramOpsSchema(db);
    if (schema === undefined) return;
    await sql`create index devices_name_trgm on devices using gin (lower(device_name) ${sql.id(schema)}.gin_trgm_ops)`.execute(
      db,
    );
  },
  async down(db: Kysely<unknown>) {
    // The extension stays: stores in other schemas of the database may use it.
    await sql`drop index if exists devices_name_trgm`.execute(db);
  },
};
