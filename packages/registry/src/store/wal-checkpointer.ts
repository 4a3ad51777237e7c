import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * WAL pages at which the writer's own connection still checkpoints (SQLite's `wal_autocheckpoint`), once the
 * background checkpointer runs: only if that one falls behind (its copies never catch up with a writer that never
 * pauses), since it has copied most frames by then, so the writer's checkpoint is short. SQLite's default is 1000.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;
/** WAL frames not yet copied into the database file at which the worker checkpoints (SQLite's own default). */
const CHECKPOINT_PAGES = 1000;
/** How often the worker looks at the WAL's frame counts, ms (a read of the `-shm` file's first 100 bytes). */
const LOOK_EVERY_MS = 20;
/** Most checkpoints run back to back while each leaves frames behind (a writer appended during the copy). */
const CATCH_UP_RUNS = 5;
/**
 * WAL frames at which the worker asks the uplink writer to pause for a checkpoint that copies every frame. A checkpoint
 * running beside a writer that never pauses never copies the WAL whole, and then SQLite never starts it over: the
 * writer's own fallback checkpoint collided with the worker's and the WAL grew past 130 MB in 40,000 uplinks of 2 KB.
 * After the pause the writer's fallback checkpoint, a little later, finds nothing left to copy and the WAL starts over
 * (it stays under about 11,000 frames). A pause holds the uplinks, not the event loop, for the copy of the frames
 * written since the worker's last checkpoint and one sync of the database file.
 */
const RESTART_AT_FRAMES = FALLBACK_AUTOCHECKPOINT_PAGES - 1000;
/** Most checkpoints run back to back while the writer pauses (other writers on the connection may still append). */
const FINISH_RUNS = 50;

/**
 * The worker's code (CommonJS, run with `eval`: the fleet's processes run bundles, where a worker file beside this
 * source would not be JavaScript). Every LOOK_EVERY_MS it reads the WAL index's header from the `-shm` file
 * (https://www.sqlite.org/walformat.html: mxFrame, the frames in the WAL, at byte 16; nBackfill, those already
 * copied, at byte 96; native byte order) and once `pages` frames wait it runs `wal_checkpoint(PASSIVE)` on its own
 * connection: PASSIVE never waits for the writer nor blocks it; it copies the frames committed so far into the
 * database file and syncs it (synchronous=FULL), and the writer starts the WAL over at its next transaction once
 * every frame is copied. Checkpoints come as often as SQLite's own would (every 1000 pages), each fsync of the
 * database file competing with the uplinks' WAL syncs for the disk. A header it cannot read makes it checkpoint
 * at every look. When a round leaves frames behind in a WAL of `restartAt` frames or more, it tells the main thread
 * ("behind"), which pauses its uplink batches and asks it to copy the rest ("finish"). Errors are left to the writer's
 * fallback checkpoint.
 */
const WORKER_CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 0");
db.pragma("synchronous = FULL");
const checkpoint = db.prepare("pragma wal_checkpoint(PASSIVE)");
const header = new Uint32Array(25);
let shm;
const read = () => {
  try {
    shm ??= fs.openSync(workerData.file + "-shm", "r");
    return fs.readSync(shm, header, 0, 100, 0) === 100;
  } catch {
    return false;
  }
};
const waiting = () => (read() ? Math.max(0, header[4] - header[24]) : Infinity);
let runs = 0;
let behind = false;
const run = (most) => {
  try {
    for (let i = 0; i < most; i++) {
      const r = checkpoint.get();
      runs++;
      if (r.busy === 0 && r.checkpointed >= r.log) return;
    }
  } catch {}
};
const timer = setInterval(() => {
  if (behind || waiting() < workerData.pages) return;
  run(${CATCH_UP_RUNS});
  if (!read() || header[4] < workerData.restartAt) return;
  behind = true;
  parentPort.postMessage({ type: "behind" });
}, workerData.everyMs);
parentPort.on("message", (m) => {
  if (m === "run") run(${CATCH_UP_RUNS});
  if (m === "finish") {
    run(${FINISH_RUNS});
    behind = false;
    return parentPort.postMessage({ type: "finished" });
  }
  if (m === "run" || m === "count") return parentPort.postMessage({ type: "runs", runs });
  clearInterval(timer);
  if (shm !== undefined) fs.closeSync(shm);
  db.close();
  parentPort.close();
});
`;

/** What the worker posts: an answer to "run" or "count", or news of a WAL it cannot keep short alone. */
type WorkerMessage = { type: "runs"; runs: number } | { type: "behind" } | { type: "finished" };

/**
 * Checkpoints a SQLite database in WAL mode from a worker thread, so the writer's event loop never does it. SQLite's
 * automatic checkpoint runs inside the COMMIT that crosses 1000 WAL pages: it copies them into the database file and
 * fsyncs it there, on the writer's thread. With uplink batches of a dozen rows (bare better-sqlite3, 5,000 batches
 * of 13 rows on this schema) 1 % of the commits took 28 ms and more (max 90–106 ms), and the commits over 1 ms held
 * 87 % of all COMMIT time; without it the slowest 1 % took 1.5–5 ms. Start it, then raise the writer's
 * `wal_autocheckpoint` to FALLBACK_AUTOCHECKPOINT_PAGES (WalSync does both).
 */
export class WalCheckpointer {
  readonly #file: string;
  readonly #pages: number;
  readonly #restartAt: number;
  #worker: Worker | undefined;
  #exited: Promise<void> | undefined;
  #behind = false;
  #finishing: Promise<void> | undefined;
  readonly #answers: Array<(runs: number) => void> = [];
  #finished: (() => void) | undefined;

  /**
   * @param file the database file (not its `-wal`)
   * @param pages WAL frames waiting at which it checkpoints
   * @param restartAt WAL frames at which it asks the writer to pause for a whole checkpoint (see `behind`)
   */
  constructor(file: string, pages = CHECKPOINT_PAGES, restartAt = RESTART_AT_FRAMES) {
    this.#file = file;
    this.#pages = pages;
    this.#restartAt = restartAt;
  }

  /**
   * Whether the worker's checkpoints have fallen behind a writer that does not pause, in a WAL of `restartAt` frames
   * or more: the uplink writer should then await `catchUp` before its next batch, so the WAL can start over.
   */
  get behind(): boolean {
    return this.#behind;
  }

  /**
   * Has the worker copy every frame of the WAL while the caller holds back its writes (the event loop stays free),
   * then clears `behind`; the next write starts the WAL over. Callers waiting at once share one round.
   */
  catchUp(): Promise<void> {
    const worker = this.#worker;
    if (!worker || !this.#behind) return Promise.resolve();
    this.#finishing ??= new Promise<void>((resolve) => {
      worker.ref();
      this.#finished = resolve;
      worker.postMessage("finish");
      void this.#exited?.then(resolve);
    }).finally(() => {
      this.#finishing = undefined;
      this.#finished = undefined;
      this.#behind = false;
      this.#worker?.unref();
    });
    return this.#finishing;
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
      workerData: { driver, file: this.#file, pages: this.#pages, restartAt: this.#restartAt, everyMs: LOOK_EVERY_MS },
    });
    worker.unref(); // never keeps the process alive
    worker.on("error", () => undefined); // the writer's fallback checkpoint covers a worker that failed
    worker.on("message", (m: WorkerMessage) => {
      if (m.type === "behind") this.#behind = true;
      else if (m.type === "finished") this.#finished?.();
      else this.#answers.shift()?.(m.runs);
    });
    this.#exited = new Promise((resolve) => worker.once("exit", () => resolve()));
    this.#worker = worker;
  }

  /** Runs one checkpoint round now (tests); answers how many checkpoints the worker has run in all. */
  runNow(): Promise<number> {
    return this.#ask("run");
  }

  /** How many checkpoints the worker has run in all (0 when it is not running). */
  checkpoints(): Promise<number> {
    return this.#ask("count");
  }

  #ask(message: "run" | "count"): Promise<number> {
    const worker = this.#worker;
    if (!worker) return Promise.resolve(0);
    worker.ref();
    const answer = new Promise<number>((resolve) => this.#answers.push(resolve));
    worker.postMessage(message);
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
