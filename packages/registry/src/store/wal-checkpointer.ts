import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type BetterSqlite3 from "better-sqlite3";

/** How often the checkpointer copies the WAL's committed pages into the database file, ms. */
export const WAL_CHECKPOINT_EVERY_MS = 100;

/** SQLite's own default: a commit that leaves the WAL past this many pages checkpoints it (on the event loop). */
const AUTOCHECKPOINT_PAGES = 1000;

/**
 * The worker's code (CommonJS, run with `eval`): its own connection to the database file runs a PASSIVE checkpoint
 * every `everyMs`. synchronous=FULL makes SQLite sync the WAL before copying and the database file after, as the
 * store's own automatic checkpoints did; a checkpoint with nothing to copy does no I/O.
 */
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 5000");
db.pragma("synchronous = FULL");
const checkpoint = db.prepare("pragma wal_checkpoint(PASSIVE)");
const timer = setInterval(() => {
  try {
    checkpoint.get();
  } catch (error) {
    parentPort.postMessage(String(error && error.message));
  }
}, workerData.everyMs);
parentPort.on("message", () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** Where better-sqlite3's module is, for the worker: resolved from here, else the copy this process loaded. */
function betterSqlite3Module(): string {
  const require = createRequire(import.meta.url);
  try {
    return require.resolve("better-sqlite3");
  } catch {
    // A bundle (scripts/bundle-entry.ts) imports it by absolute path from elsewhere: the loaded copy is in the cache.
    const loaded = Object.keys(require.cache).find((f) => /[/\\]better-sqlite3[/\\]lib[/\\]index\.js$/.test(f));
    if (loaded === undefined) throw new Error("better-sqlite3 not found for the WAL checkpointer");
    return loaded;
  }
}

/**
 * Runs the SQLite store's WAL checkpoints on a worker thread with its own connection instead of in the commits of
 * the event loop. SQLite checkpoints automatically at the commit that leaves the WAL past 1,000 pages, and that
 * checkpoint syncs the WAL and the database file on the committing thread: at 1,000 device_publish calls a second
 * (six pages a command) three times a second, each a stall of the event loop of several ms (tens on a busy disk)
 * during which every REST call and command waits. Here the store's connection never checkpoints
 * (`wal_autocheckpoint = 0`) while the worker runs; should the worker fail, the connection checkpoints by itself again.
 * The WAL is restarted by the store's next write after a complete checkpoint, as before.
 */
export class WalCheckpointer {
  #worker: Worker | undefined;
  #exited: Promise<void> = Promise.resolve();
  #closing = false;

  /**
   * @param connection the store's connection (its automatic checkpoints are turned off while the worker runs).
   * @param file the database file (in WAL mode).
   * @param onError told of a checkpoint or a worker that failed.
   */
  constructor(
    private readonly connection: BetterSqlite3.Database,
    private readonly file: string,
    private readonly onError: (error: Error) => void = () => {},
    private readonly everyMs = WAL_CHECKPOINT_EVERY_MS,
  ) {}

  /**
   * Starts the worker, once (later calls do nothing): at the store's first batch sync (see `WalSync`), so a store
   * that never writes in batches (a test's, the CLI's) costs no thread.
   */
  start(): void {
    if (this.#worker || this.#closing) return;
    const { connection, onError } = this;
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { module: betterSqlite3Module(), file: this.file, everyMs: this.everyMs },
    });
    this.#worker = worker;
    worker.unref();
    connection.pragma("wal_autocheckpoint = 0");
    worker.on("message", (message: string) => onError(new Error(`WAL checkpoint failed: ${message}`)));
    worker.once("error", (error) => onError(error));
    this.#exited = new Promise((resolve) =>
      worker.once("exit", () => {
        if (connection.open) connection.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
        if (!this.#closing) onError(new Error("WAL checkpointer stopped; the store checkpoints by itself again"));
        resolve();
      }),
    );
  }

  /** Stops the worker (its connection closed) and gives the checkpoints back to the store's connection. */
  async close(): Promise<void> {
    if (!this.#closing) {
      this.#closing = true;
      this.#worker?.postMessage("close");
    }
    await this.#exited;
  }
}
