import { mkdirSync } from "node:fs";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { CamelCasePlugin, Kysely, SqliteDialect, type Logger, type SqliteDatabase, type SqliteStatement } from "kysely";
import type { Database } from "./schema.js";
import { LockedSqliteDialect } from "./locked-sqlite-dialect.js";
import type { WriteLock } from "./write-lock.js";

/** File name of the SQLite database inside the data directory. */
export const SQLITE_FILE_NAME = "iot.db";

/** Prepared statements kept per connection, by SQL text (the oldest is dropped beyond it). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * The connection as kysely sees it, preparing each distinct SQL text once: kysely asks for a statement per query,
 * and preparing it again every time was a sixth of a device connect's cost. Reuse is safe because kysely runs one
 * query at a time on the connection.
 */
export function cachingStatements(sqlite: BetterSqlite3.Database, size = STATEMENT_CACHE_SIZE): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql) {
      // SQLite itself rolls a transaction back on some errors (SQLITE_FULL, SQLITE_IOERR, …): kysely's rollback then
      // failed with "no transaction is active" and that error replaced the real one (a full disk went unreported).
      if (sql === "rollback" && !sqlite.inTransaction) return ROLLED_BACK;
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql); // most recently used goes last
      } else {
        statement = sqlite.prepare(sql);
        if (cache.size >= size) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return statement;
    },
  };
}

/** Stands in for `rollback` when SQLite has already rolled the transaction back: nothing left to undo. */
const ROLLED_BACK: SqliteStatement = {
  reader: false,
  all: () => [],
  run: () => ({ changes: 0, lastInsertRowid: 0 }),
  iterate: () => [][Symbol.iterator](),
};

/** The better-sqlite3 connection under each handle `openSqlite` made (for the uplink rows: `sqliteConnectionOf`). */
const connections = new WeakMap<Kysely<Database>, BetterSqlite3.Database>();

/**
 * The better-sqlite3 connection under a handle `openSqlite` made, or undefined for any other handle. Statements run on
 * it directly belong to whatever transaction kysely has open on it, so only code that holds the connection (inside
 * a transaction's callback) may use it.
 */
export const sqliteConnectionOf = (db: Kysely<Database>): BetterSqlite3.Database | undefined => connections.get(db);

/** How long, in ms, a statement waits for another connection's write lock before failing. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens (creating when missing) `<dataDir>/iot.db`. WAL lets readers run
 * beside the writer; synchronous=FULL syncs the WAL at every commit, because
 * an acknowledged uplink must survive a power cut. One connection: kysely
 * serializes its queries, and transactions hold it until they end. With
 * `writeLock`, every write takes it first (another thread of this process
 * writes through a connection of its own: LockedSqliteDialect). `log` is kysely's query log (StoreHooks.queryLog:
 * the registry counts failed statements and follows the database's state with it).
 */
export function openSqlite(dataDir: string, writeLock?: WriteLock, log?: Logger): Kysely<Database> {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, SQLITE_FILE_NAME);
  let sqlite: BetterSqlite3.Database | undefined;
  try {
    sqlite = new BetterSqlite3(file);
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = FULL");
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    sqlite.pragma("foreign_keys = ON");
  } catch (error) {
    sqlite?.close();
    throw new Error(`cannot open SQLite database ${file}: ${(error as Error).message}`, { cause: error });
  }
  const database = cachingStatements(sqlite);
  const db = new Kysely<Database>({
    dialect: writeLock ? new LockedSqliteDialect(database, writeLock) : new SqliteDialect({ database }),
    plugins: [new CamelCasePlugin()],
    log,
  });
  connections.set(db, sqlite);
  return db;
}
