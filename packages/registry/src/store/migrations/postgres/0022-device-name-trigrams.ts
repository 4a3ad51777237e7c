import { sql, type Kysely, type Migration } from "kysely";

/**
 * 0022: a trigram index of lowered device names (pg_trgm's GIN operator class), which the planner uses by itself for
 * a `deviceName_like` search (`lower(device_name) like '%…%'`) that finds few devices, as SQLite's 0022 does with an
 * FTS5 table. pg_trgm ships with PostgreSQL's contrib: when the server lacks it, or the role may not create it, this
 * adds nothing and searches scan as before. Created in schema public, once for the database (under a lock, since
 * stores in other schemas may migrate at the same time), so that dropping one store's schema cannot take it along.
 */
export const deviceNameTrigrams: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`select pg_advisory_xact_lock(hashtext('iot-device-fleet pg_trgm'))`.execute(db);
    const { rows } = await sql<{ schema: string | null; creatable: boolean }>`select
        (select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace
          where e.extname = 'pg_trgm') as schema,
        exists (select 1 from pg_available_extensions where name = 'pg_trgm')
          and has_database_privilege(current_database(), 'CREATE')
          and case when exists (select 1 from pg_namespace where nspname = 'public')
            then has_schema_privilege('public', 'CREATE') else false end as creatable`.execute(db);
    let schema = rows[0]?.schema ?? null;
    if (schema === null) {
      if (!rows[0]?.creatable) return;
      await sql`create extension if not exists pg_trgm with schema public`.execute(db);
      schema = "public";
    }
    await sql`create index devices_name_trgm on devices using gin (lower(device_name) ${sql.id(schema)}.gin_trgm_ops)`.execute(
      db,
    );
  },
  async down(db: Kysely<unknown>) {
    // The extension stays: stores in other schemas of the database may use it.
    await sql`drop index if exists devices_name_trgm`.execute(db);
  },
};
