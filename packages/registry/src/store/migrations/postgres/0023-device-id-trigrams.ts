import { sql, type Kysely, type Migration } from "kysely";
import { trigramOpsSchema } from "./pg-trgm.js";

/**
 * 0023: a trigram index of lowered device ids, for `deviceID_like`, as 0022 made for names (and SQLite's 0023 with
 * an FTS5 table). Without pg_trgm this adds nothing.
 */
export const deviceIdTrigrams: Migration = {
  async up(db: Kysely<unknown>) {
    const schema = await trigramOpsSchema(db);
    if (schema === undefined) return;
    await sql`create index devices_id_trgm on devices using gin (lower(device_id) ${sql.id(schema)}.gin_trgm_ops)`.execute(
      db,
    );
  },
  async down(db: Kysely<unknown>) {
    await sql`drop index if exists devices_id_trgm`.execute(db);
  },
};
