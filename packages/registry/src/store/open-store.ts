import type { Kysely } from "kysely";
import { migrateSqlite, migrateToLatest } from "./migrations/migrate.js";
import { openPostgres } from "./postgres.js";
import { ReadReplicas } from "./read-replicas.js";
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
  const readUrls = options.reads?.urls ?? [];
  if (url === undefined || url === "") {
    if (readUrls.length > 0) {
      throw new Error("read replicas (IOT_DATABASE_READ_URL) need PostgreSQL: SQLite has none (set IOT_DATABASE_URL)");
    }
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
  const reads = readUrls.length === 0 ? undefined : await openReplicas(db, options);
  let closing: Promise<void> | undefined;
  return {
    engine,
    db,
    uplinks,
    durability,
    writeLock,
    reads,
    close() {
      closing ??= (async () => {
        try {
          await reads?.close();
          await uplinks.close();
        } finally {
          await db.destroy();
        }
      })();
      return closing;
    },
  };
}

/**
 * The read replicas of `options.reads` on the primary `db`, polled once before the store serves reads. Without the
 * store's query log: a replica's failure is the read routing's to report, not the database's state.
 */
async function openReplicas(db: Kysely<Database>, options: StoreOptions) {
  const reads = options.reads!;
  const replicas = await Promise.all(
    reads.urls.map(async (url) => ({
      name: replicaName(url),
      db: (await openPostgres(url, options.pgSchema, undefined, "replica")).db,
    })),
  );
  const routing = new ReadReplicas(db, replicas, reads);
  await routing.poll();
  return routing;
}

/**
 * A replica's name in logs, the open health report and metric labels: `host:port` (port 5432 when the URL has none),
 * without user, password or database.
 */
function replicaName(url: string): string {
  const u = new URL(url);
  return `${u.hostname || "localhost"}:${u.port || "5432"}`;
}
