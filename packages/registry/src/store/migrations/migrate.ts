import { sql, type Kysely } from "kysely";
import { Migrator, type Migration } from "kysely/migration";
import type { Database } from "../schema.js";
import type { Engine } from "../store.js";
import { postgresMigrations } from "./postgres/index.js";
import { sqliteMigrations } from "./sqlite/index.js";

/** The migrations of one engine, by name (the static list, no file globbing). */
export function migrationsFor(engine: Engine): Readonly<Record<string, Migration>> {
  return engine === "postgres" ? postgresMigrations : sqliteMigrations;
}

/**
 * Brings the database up to the newest migration of its engine. Each
 * migration runs in its own transaction; on PostgreSQL kysely takes an
 * advisory lock, so central nodes starting together migrate once.
 * `pgSchema` names the schema of kysely's bookkeeping tables: without it,
 * kysely would find them in any schema of the database and skip creating
 * them in ours.
 * @throws the first failing migration's error.
 */
export async function migrateToLatest(db: Kysely<Database>, engine: Engine, pgSchema?: string): Promise<string[]> {
  const migrations = migrationsFor(engine);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...migrations }) },
    // Migration numbers are handed out ahead of merging: one may land below one a database already ran (0031 after
    // 0032); it runs at the next start rather than stopping it. Each migration stands alone.
    allowUnorderedMigrations: true,
    ...(pgSchema === undefined ? {} : { migrationTableSchema: pgSchema }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "(setup)";
    throw new Error(`${engine} migration ${failed} failed: ${errorMessage(error)}`, { cause: error });
  }
  return (results ?? []).map((r) => r.migrationName);
}

/**
 * Migrates a SQLite database with its commits at synchronous=NORMAL, then sets FULL again. Kysely runs SQLite's
 * migrations without a transaction, one commit per statement, and at FULL each waited for an fsync: 0.4–1 s of a fresh
 * node's start. In WAL mode, NORMAL keeps the file consistent through a crash; what a power loss can take is the last
 * commits, which is what a crash in the middle of migrating leaves anyway, and the next start runs them again. The
 * connection's next commit at FULL syncs the log with every frame written before it.
 */
export async function migrateSqlite(db: Kysely<Database>): Promise<string[]> {
  await sql`pragma synchronous = NORMAL`.execute(db);
  try {
    return await migrateToLatest(db, "sqlite");
  } finally {
    await sql`pragma synchronous = FULL`.execute(db);
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
