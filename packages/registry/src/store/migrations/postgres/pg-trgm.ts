import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * The schema holding pg_trgm's operator classes, creating the extension when the server has it and the role may, or
 * undefined when neither (then trigram indexes are left out and `_like` searches scan). pg_trgm ships with
 * PostgreSQL's contrib. It is created in schema public, once for the database (under a lock, since stores in other
 * schemas may migrate at the same time), so that dropping one store's schema cannot take it along.
 */
async function trigramOpsSchema(db: Kysely<unknown>): Promise<string | undefined> {
  await sql`select pg_advisory_xact_lock(hashtext('iot-device-fleet pg_trgm'))`.execute(db);
  const { rows } = await sql<{ schema: string | null; creatable: boolean }>`select
      (select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace
        where e.extname = 'pg_trgm') as schema,
      exists (select 1 from pg_available_extensions where name = 'pg_trgm')
        and has_database_privilege(current_database(), 'CREATE')
        and case when exists (select 1 from pg_namespace where nspname = 'public')
          then has_schema_privilege('public', 'CREATE') else false end as creatable`.execute(db);
  const schema = rows[0]?.schema;
  if (schema) return schema;
  if (!rows[0]?.creatable) return undefined;
  await sql`create extension if not exists pg_trgm with schema public`.execute(db);
  return "public";
}

/**
 * A migration adding a GIN trigram index of one lowered text column of `devices` (0022 names, 0023 ids), which the
 * planner uses by itself for `lower(column) like '%…%'` searches that find few devices; nothing without pg_trgm.
 */
export function deviceTextTrigrams(index: string, column: string): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const schema = await trigramOpsSchema(db);
      if (schema === undefined) return;
      await sql`create index ${sql.id(index)} on devices using gin (lower(${sql.ref(column)}) ${sql.id(schema)}.gin_trgm_ops)`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>) {
      // The extension stays: stores in other schemas of the database may use it.
      await sql`drop index if exists ${sql.id(index)}`.execute(db);
    },
  };
}
