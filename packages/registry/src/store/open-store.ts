import type { Kysely } from "kysely";
import { migrateSqlite, migrateToLatest } from "./migrations/migrate.js";
import { openPostgres } from "./postgres.js";
import type { Database } from "./schema.js";
import { join } from "node:path";
import { SQLITE_FILE_NAME, openSqlite } from "./sqlite.js";
import { WalSync, commitIsDurable } from "./batch-durability.js";
import type { Engine, Store, StoreOptions } from "./store.js";
import { BatchedUplinkWriter } from "./uplink-writer.js";
import { CheckpointedWal } from "./wal-checkpoints.js";
import { withPostgresStartupLock } from "./startup-lock.js";
import { ensurePartitions } from "./history-partitions.js";
import { moveUnpartitionedRows } from "./partition-move.js";
import { WriteLock } from "./write-lock.js";

/** Without a handler of its own, a failed WAL checkpoint is reported on stderr (the store goes on). */
const logCheckpointError = (error: Error) => console.error(error);

/** URL schemes that select PostgreSQL. */
const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/**
 * Opens the store the options name: a `postgres://` or `postgresql://` URL
 * selects PostgreSQL, no URL selects SQLite in `dataDir`. Migrates the schema
 * to the newest version before returning. The registry opens it with its hooks through `openRegistryStore`.
 * @throws Error naming the database (never its password) when it cannot be
 *   reached or migrated, or when the URL names another engine.
 */
export async function openStore(options: StoreOptions): Promise<Store> {
  const url = options.databaseUrl;
  const hooks = options.hooks ?? {};
  let engine: Engine;
  let db: Kysely<Database>;
  let migrationSchema: string | undefined;
  // SQLite: every write of this node takes it, so that a thread with a connection of its own (the data pipeline's)
  // can write too without either waiting in SQLite's busy handler.
  let writeLock: WriteLock | undefined;
  if (url === undefined || url === "") {
    engine = "sqlite";
    writeLock = new WriteLock();
    db = openSqlite(options.dataDir, writeLock, hooks.queryLog?.(engine));
  } else if (POSTGRES_URL.test(url)) {
    engine = "postgres";
    ({ db, schema: migrationSchema } = await openPostgres(url, options.pgSchema, hooks.queryLog?.(engine)));
  } else {
    throw new Error("unsupported database URL: only postgres:// or postgresql:// (or none, for SQLite)");
  }
  try {
    // Several nodes starting at once on PostgreSQL migrate one after another.
    // Then the history rows of a database from before 0034 move into their partitions (resumable), and the
    // partitions of the next spans are made before any uplink needs them.
    if (engine === "postgres")
      await withPostgresStartupLock(db, async () => {
        await migrateToLatest(db, "postgres", migrationSchema);
        const spanDays = options.historyPartitionDays;
        await moveUnpartitionedRows(db, { spanDays, onProgress: options.onPartitionMove });
        await ensurePartitions(db, { spanDays });
      });
    else await migrateSqlite(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const dbFile = join(options.dataDir, SQLITE_FILE_NAME);
  const durability =
    engine === "sqlite"
      ? new CheckpointedWal(new WalSync(`${dbFile}-wal`), db, dbFile, options.onCheckpointError ?? logCheckpointError, {
          lock: writeLock,
        })
      : commitIsDurable;
  const uplinks = new BatchedUplinkWriter(db, engine, options, durability, hooks);
  let closing: Promise<void> | undefined;
  return {
    engine,
    db,
    uplinks,
    durability,
    writeLock,
    close() {
      closing ??= (async () => {
        try {
          await uplinks.close();
        } finally {
          await db.destroy();
        }
      })();
      return closing;
    },
  };
}
