import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * WAL pages at which the writer's own connection still checkpoints (SQLite's `wal_autocheckpoint`), once the
 * background checkpointer runs: only if that one falls behind (its copies never catch up with a writer that never
 * pauses), since it has copied most frames by then, so the writer's checkpoint is short. SQLite's default is 1000.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;
/** How often the background connection checkpoints, ms (SQLite's default 1000 pages is about 0.2 s of uplinks). */
const CHECKPOINT_EVERY_MS = 100;
/** Most checkpoints run back to back while each leaves frames behind (a writer appended during the copy). */
const CATCH_UP_RUNS = 5;

/**
 * The worker's code (CommonJS, run with `eval`: the fleet's processes run bundles, where a worker file beside this
 * source would not be JavaScript). Every CHECKPOINT_EVERY_MS it runs `wal_checkpoint(PASSIVE)` on its own connection:
 * PASSIVE never waits for the writer nor blocks it; it copies the frames committed so far into the database file and
 * syncs it (synchronous=FULL), then the writer starts the WAL over at its next transaction once every frame is copied.
 * Errors are left to the writer's fallback checkpoint.
 */
const WORKER_CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 0");
db.pragma("synchronous = FULL");
const checkpoint = db.prepare("pragma wal_checkpoint(PASSIVE)");
let runs = 0;
const tick = () => {
  try {
    for (let i = 0; i < ${CATCH_UP_RUNS}; i++) {
      const r = checkpoint.get();
      runs++;
      if (r.busy !== 0 || r.checkpointed >= r.log) break;
    }
  } catch {}
};
const timer = setInterval(tick, workerData.everyMs);
parentPort.on("message", (m) => {
  if (m === "run") { tick(); parentPort.postMessage({ runs }); return; }
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints a SQLite database in WAL mode from a worker thread, so the writer's event loop never does it. SQLite's
 * automatic checkpoint runs inside the COMMIT that crosses 1000 WAL pages: it copies them into the database file and
 * fsyncs it there, on the writer's thread. With uplink batches of a dozen rows (bare better-sqlite3, 5,000 batches
 * of 13 rows on this schema) 1 % of the commits took 28 ms and more (max 90–106 ms), 85 % of all COMMIT time;
 * without it the slowest 1 % took 1.5–5 ms. Start it, then raise the writer's `wal_autocheckpoint` to
 * FALLBACK_AUTOCHECKPOINT_PAGES (WalSync does both).
 */
export class WalCheckpointer {
  readonly #file: string;
  readonly #everyMs: number;
  #worker: Worker | undefined;
  #exited: Promise<void> | undefined;

  /** @param file the database file (not its `-wal`) */
  constructor(file: string, everyMs = CHECKPOINT_EVERY_MS) {
    this.#file = file;
    this.#everyMs = everyMs;
  }

  /** Whether the worker has been started (and not closed). */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** Starts the worker once; later calls do nothing. */
  start(): void {
    if (this.#worker !== undefined || this.#exited !== undefined) return;
    const driver = createRequire(import.meta.url).resolve("better-sqlite3");
    const worker = new Worker(WORKER_CODE, {
      eval: true,
      workerData: { driver, file: this.#file, everyMs: this.#everyMs },
    });
    worker.unref(); // never keeps the process alive
    worker.on("error", () => undefined); // the writer's fallback checkpoint covers a worker that failed
    this.#exited = new Promise((resolve) => worker.once("exit", () => resolve()));
    this.#worker = worker;
  }

  /** Runs one checkpoint round now (tests); answers how many checkpoints the worker has run in all. */
  async runNow(): Promise<number> {
    const worker = this.#worker;
    if (!worker) return 0;
    worker.ref();
    const answer = new Promise<number>((resolve) => worker.once("message", (m: { runs: number }) => resolve(m.runs)));
    worker.postMessage("run");
    return answer.finally(() => worker.unref());
  }

  /** Stops the worker (after a checkpoint under way) and closes its connection. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    if (!worker) return;
    worker.ref(); // waited for: the process stays up until it has exited
    worker.postMessage("stop");
    await this.#exited;
  }
}
