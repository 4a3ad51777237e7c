import { sql, type Kysely } from "kysely";
import type { Database } from "./schema.js";
import type { Store } from "./store.js";

/** The PostgreSQL advisory lock key of node start-up ("iotstart" in ASCII, fits a bigint). */
const STARTUP_LOCK = 0x696f747374617274n;

/**
 * Runs `fn` while no other node runs its own: on PostgreSQL, nodes starting together would each generate the
 * token secret, the service CA or the first administrator and keep different ones. A session advisory lock on one
 * pooled connection serializes them (released with that connection if the process dies). SQLite: runs `fn`.
 */
export async function withStartupLock<T>(store: Store, fn: () => Promise<T>): Promise<T> {
  return store.engine === "postgres" ? withPostgresStartupLock(store.db, fn) : fn();
}

/** `withStartupLock` on a PostgreSQL connection pool (the store opening migrates under it too). */
export function withPostgresStartupLock<T>(db: Kysely<Database>, fn: () => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${STARTUP_LOCK.toString()}::bigint)`.execute(conn);
    try {
      return await fn();
    } finally {
      await sql`select pg_advisory_unlock(${STARTUP_LOCK.toString()}::bigint)`.execute(conn);
    }
  });
}
