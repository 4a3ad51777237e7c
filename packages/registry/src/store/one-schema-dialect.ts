import {
  PostgresDialect,
  sql,
  type DatabaseIntrospector,
  type Kysely,
  type PostgresDialectConfig,
  type SchemaMetadata,
  type TableMetadata,
} from "kysely";

/**
 * The PostgreSQL dialect for a store kept in one schema (tests, benchmarks): its introspection, which kysely's
 * migrator uses to find its bookkeeping tables, reads that schema only. kysely's own reads every schema of the
 * database and calls pg_get_serial_sequence on each table, which fails when another store drops its schema at that
 * moment — as parallel test files do on one shared database.
 */
export class OneSchemaPostgresDialect extends PostgresDialect {
  constructor(
    config: PostgresDialectConfig,
    private readonly schema: string,
  ) {
    super(config);
  }

  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new OneSchemaIntrospector(db, this.schema);
  }
}

/** Names only (no columns): all the migrator asks of tables and schemas. */
class OneSchemaIntrospector implements DatabaseIntrospector {
  constructor(
    private readonly db: Kysely<unknown>,
    private readonly schema: string,
  ) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<SchemaMetadata>`
      select nspname as name from pg_catalog.pg_namespace where nspname = ${this.schema}`.execute(this.db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; kind: string }>`
      select c.relname as name, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      where ns.nspname = ${this.schema} and c.relkind in ('r', 'v', 'p')`.execute(this.db);
    return rows.map((r) => ({
      name: r.name,
      schema: this.schema,
      isView: r.kind === "v",
      isForeign: false,
      columns: [],
    }));
  }
}
