import { join } from "node:path";
import { Worker, type MessagePort } from "node:worker_threads";
import type { Logger } from "pino";
import pino from "pino";
import { WalSync } from "../store/batch-durability.js";
import { SQLITE_FILE_NAME, openSqlite, sqliteConnectionOf } from "../store/sqlite.js";
import { WriteLock } from "../store/write-lock.js";
import { databaseErrorLog } from "../ops/registry-metrics.js";
import { DataPipeline } from "./data-pipeline.js";
import { NODE_OBSERVER, type PipelineObserver } from "./pipeline-observer.js";

/** `workerData.role` of a worker that runs the data pipeline (the entry module checks it: runPipelineWorker). */
export const PIPELINE_WORKER_ROLE = "iot-data-pipeline";

/**
 * Most uplinks per transaction on the pipeline's thread: the uplink writer waits for SQLite's write lock while one
 * lasts, and 2,000 uplinks of a product with four values took 19–29 ms (docs/performance.md, "The data pipeline").
 */
const CHUNK_UPLINKS = 250;

/** Wait before a worker that ended by itself is started again, ms. */
const RESTART_DELAY_MS = 1_000;

/** How long close waits for the worker to save its cursor and stop before terminating it, ms. */
const CLOSE_TIMEOUT_MS = 10_000;

/** What the worker is started with. */
export interface PipelineWorkerData {
  role: typeof PIPELINE_WORKER_ROLE;
  dataDir: string;
  /** The store's WriteLock memory: the worker's connection takes the same lock. */
  lock: SharedArrayBuffer;
  /** One Int32, 1 from a wake-up sent until the worker's next batch starts to read (PipelineThread.wake). */
  wakeSent: SharedArrayBuffer;
  logLevel: string;
}

type ToWorker = { type: "wake" } | { type: "close" };
type FromWorker =
  | { type: "started" }
  | { type: "batch"; uplinks: number; values: number; lagSeconds: number }
  | { type: "failed" }
  | { type: "committed" }
  | { type: "closed" };

/**
 * The data pipeline (SQLite) on a worker thread with a connection of its own: its decoding and its writes no longer
 * run on the event loop that acknowledges every device's uplinks (a batch of 2,000 uplinks held it 30–40 ms). The
 * two connections take turns through the store's WriteLock, and the pipeline writes in transactions of at most
 * CHUNK_UPLINKS uplinks, so an uplink commit waits a few milliseconds at most. Metrics and feed wake-ups come back
 * to this thread.
 */
export class PipelineThread {
  readonly #workerData: PipelineWorkerData;
  readonly #lock: WriteLock;
  readonly #entry: string | URL;
  readonly #logger: Logger;
  readonly #wakeSent: Int32Array;
  #worker!: Worker;
  #exited!: Promise<void>;
  #closing = false;
  #wakeQueued = false;

  private constructor(entry: string | URL, workerData: PipelineWorkerData, lock: WriteLock, logger: Logger) {
    this.#entry = entry;
    this.#lock = lock;
    this.#workerData = workerData;
    this.#wakeSent = new Int32Array(workerData.wakeSent);
    this.#logger = logger;
  }

  /**
   * Starts the worker from `entry` (a module that calls runPipelineWorker when workerData.role is
   * PIPELINE_WORKER_ROLE) and resolves once its pipeline has read its cursor. A worker that ends by itself later (a
   * bug thrown out of it) is logged and started again after RESTART_DELAY_MS: the pipeline goes on from its cursor.
   */
  static async start(
    opts: { entry: string | URL; dataDir: string; writeLock: WriteLock; logLevel: string },
    logger: Logger,
  ): Promise<PipelineThread> {
    const workerData: PipelineWorkerData = {
      role: PIPELINE_WORKER_ROLE,
      dataDir: opts.dataDir,
      lock: opts.writeLock.buffer,
      wakeSent: new SharedArrayBuffer(4),
      logLevel: opts.logLevel,
    };
    const thread = new PipelineThread(opts.entry, workerData, opts.writeLock, logger);
    await thread.#spawn();
    return thread;
  }

  /**
   * New uplinks were stored: the worker runs a batch soon. A message goes at the end of the event loop's turn (after
   * the turn's acknowledgements), and only when none was sent since the worker's last batch started to read: that
   * batch's read comes after this call, so it takes these uplinks. A message per turn, about 300 a second under CoAP
   * load while the pipeline reads at most 10 times a second, cost both threads a wake-up each time.
   */
  wake(): void {
    if (this.#wakeQueued) return;
    this.#wakeQueued = true;
    setImmediate(() => {
      this.#wakeQueued = false;
      if (Atomics.exchange(this.#wakeSent, 0, 1) === 0) this.#post({ type: "wake" });
    });
  }

  /** Asks the worker to finish its batch and save its cursor, and waits for it to end. */
  async close(): Promise<void> {
    this.#closing = true;
    this.#post({ type: "close" });
    const worker = this.#worker;
    const timer = setTimeout(() => {
      this.#logger.warn("the data pipeline's thread did not stop in time: terminated");
      void worker.terminate();
    }, CLOSE_TIMEOUT_MS);
    await this.#exited;
    clearTimeout(timer);
  }

  /** Starts a worker and resolves once it has started its pipeline. */
  async #spawn(): Promise<void> {
    const worker = new Worker(this.#entry, { workerData: this.#workerData });
    this.#worker = worker;
    const id = worker.threadId;
    this.#exited = new Promise((resolve) =>
      worker.once("exit", () => {
        // A worker that ended inside a transaction (terminated, or a crash) never let the lock go.
        if (this.#lock.releaseIfHeldBy(id))
          this.#logger.warn("the data pipeline's thread ended holding the write lock");
        resolve();
      }),
    );
    await new Promise<void>((resolve, reject) => {
      const onExit = (code: number) => reject(new Error(`the data pipeline's thread exited with ${code}`));
      worker.once("error", reject);
      worker.once("exit", onExit);
      worker.once("message", (m: FromWorker) => {
        worker.off("error", reject);
        worker.off("exit", onExit);
        if (m.type === "started") resolve();
        else reject(new Error(`the data pipeline's thread said ${m.type} before it started`));
      });
    });
    worker.on("message", (m: FromWorker) => this.#onMessage(m));
    worker.on("error", (err) => this.#logger.error({ err }, "the data pipeline's thread failed"));
    worker.once("exit", (code) => {
      if (this.#closing) return;
      this.#logger.error({ code }, "the data pipeline's thread ended; starting it again");
      this.#restartLater();
    });
  }

  #restartLater(): void {
    setTimeout(() => {
      if (this.#closing) return;
      this.#spawn().catch((err: unknown) => {
        this.#logger.error({ err }, "restarting the data pipeline's thread failed");
        this.#restartLater();
      });
    }, RESTART_DELAY_MS).unref();
  }

  #post(m: ToWorker): void {
    this.#worker.postMessage(m);
  }

  #onMessage(m: FromWorker): void {
    switch (m.type) {
      case "batch":
        NODE_OBSERVER.batch(m.uplinks, m.values, m.lagSeconds);
        break;
      case "failed":
        NODE_OBSERVER.failed();
        break;
      case "committed":
        NODE_OBSERVER.committed();
        break;
    }
  }
}

/** The worker's side: opens its connection, runs the pipeline, and reports to the main thread through `port`. */
export async function runPipelineWorker(data: PipelineWorkerData, port: MessagePort): Promise<void> {
  const logger = pino({ name: "data-pipeline", level: data.logLevel }, pino.destination(2));
  const db = openSqlite(data.dataDir, new WriteLock(data.lock), databaseErrorLog("sqlite"));
  // Checkpoints are the main connection's (CheckpointedWal): this one never starts one in its commits.
  sqliteConnectionOf(db)!.pragma("wal_autocheckpoint = 0");
  const durability = new WalSync(`${join(data.dataDir, SQLITE_FILE_NAME)}-wal`);
  const send = (m: FromWorker) => port.postMessage(m);
  const wakeSent = new Int32Array(data.wakeSent);
  const observer: PipelineObserver = {
    reading: () => Atomics.store(wakeSent, 0, 0),
    batch: (uplinks, values, lagSeconds) => send({ type: "batch", uplinks, values, lagSeconds }),
    failed: () => send({ type: "failed" }),
    committed: () => send({ type: "committed" }),
  };
  const pipeline = new DataPipeline(db, logger, { durability, observer, chunkUplinks: CHUNK_UPLINKS });
  await pipeline.start();
  port.on("message", (m: ToWorker) => {
    if (m.type === "wake") pipeline.wake();
    else
      void (async () => {
        await pipeline.close();
        await durability.close();
        await db.destroy();
        port.close();
      })().catch((err: unknown) => logger.error({ err }, "closing the data pipeline failed"));
  });
  send({ type: "started" });
}
