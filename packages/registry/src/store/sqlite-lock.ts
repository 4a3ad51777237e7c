import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";

/** File beside the database whose exclusive SQLite lock one central node holds while it runs. */
export const SQLITE_LOCK_FILE_NAME = "iot.db.lock";

/** The node lock of a SQLite data folder; `release()` frees it (a killed process frees it with its file locks). */
export interface SqliteNodeLock {
  release(): void;
}

/**
 * Takes the data folder's node lock: SQLite is single-node, and a second central node on the same file would
 * route commands and run schedules as if alone. The lock is an exclusive transaction held open on a small lock
 * database; the operating system drops it when the process ends, even by kill -9, so a stale lock never blocks a
 * restart (no pid file to clean up).
 * @throws Error saying another node holds the folder, when it does.
 */
export function lockSqliteDataDir(dataDir: string): SqliteNodeLock {
  const file = join(dataDir, SQLITE_LOCK_FILE_NAME);
  const db = new BetterSqlite3(file, { timeout: 0 });
  try {
    db.pragma("locking_mode = EXCLUSIVE");
    db.exec("begin exclusive");
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code?.startsWith("SQLITE_BUSY"))
      throw new Error(
        `another central node is running on ${dataDir}: SQLite serves one node (set IOT_DATABASE_URL to a PostgreSQL database to run several)`,
        { cause: err },
      );
    throw err;
  }
  return {
    release() {
      if (db.open) db.close();
    },
  };
}
