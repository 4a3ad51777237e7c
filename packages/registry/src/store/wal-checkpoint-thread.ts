import { Worker } from "node:worker_threads";
import type BetterSqlite3 from "better-sqlite3";

/** SQLite's default `wal_autocheckpoint`, pages: what the connection goes back to when the thread stops. */
const AUTOCHECKPOINT_PAGES = 1000;
/** Frames in the WAL past which the main connection finishes a checkpoint the thread could not (see below). */
const FINISH_AT_FRAMES = 1000;
/** Least time, ms, between two checkpoints asked for after commits. */
const CHECKPOINT_EVERY_MS = 50;
/** The thread's own checkpoint when nothing asks, ms (writes that are not uplink batches). */
const IDLE_CHECKPOINT_MS = 1000;

type ThreadMessage = { type: "checkpointed"; log: number } | { type: "error"; message: string };

/**
 * Checkpoints a SQLite database's WAL from a thread of its own. SQLite's automatic checkpoint runs inside the COMMIT
 * that crosses 1,000 WAL pages, on the event loop: it copies the pages into the database file and fsyncs it (in a
 * loop of 82-row uplink batches, every sixteenth commit took 24–53 ms of wall time that way, and checkpoints were a
 * fifth of the commits' CPU). Here the main connection's automatic checkpoint is off and a thread copies the pages.
 *
 * A checkpoint running beside the writer cannot finish while commits go on, and SQLite starts the WAL over only when
 * every frame in it was copied: so when the thread reports a WAL past FINISH_AT_FRAMES that it could not copy whole,
 * the main connection checkpoints the rest itself after its next commit (the frames committed meanwhile, not the
 * thousand), and the WAL starts over at the next write. When the thread fails or stops, the connection's automatic
 * checkpoint is back on.
 */
export class WalCheckpointThread {
  readonly #connection: BetterSqlite3.Database;
  readonly #worker: Worker;
  readonly #exited: Promise<void>;
  #asked = false;
  #askedAt = 0;
  #finish = false;
  #stopped = false;

  /** @param file the database file the connection has open (in WAL mode). */
  constructor(connection: BetterSqlite3.Database, file: string) {
    this.#connection = connection;
    this.#worker = new Worker(new URL("./wal-checkpoint-worker.mjs", import.meta.url), {
      workerData: { file, idleMs: IDLE_CHECKPOINT_MS },
      execArgv: [],
    });
    this.#worker.unref();
    this.#worker.on("message", (m: ThreadMessage) => this.#message(m));
    this.#worker.on("error", () => this.#stop());
    this.#exited = new Promise((resolve) => this.#worker.once("exit", () => resolve()));
    void this.#exited.then(() => this.#stop());
    connection.pragma("wal_autocheckpoint = 0");
  }

  /**
   * After a commit on the connection, outside any transaction: finishes a checkpoint the thread could not, or asks the
   * thread for one (at most one under way, one per CHECKPOINT_EVERY_MS).
   */
  committed(): void {
    if (this.#stopped) return;
    if (this.#finish && !this.#connection.inTransaction) {
      this.#finish = false;
      try {
        this.#connection.pragma("wal_checkpoint(PASSIVE)");
      } catch {
        this.#stop(); // the connection checkpoints for itself again
      }
      return;
    }
    const now = performance.now();
    if (this.#asked || now - this.#askedAt < CHECKPOINT_EVERY_MS) return;
    this.#asked = true;
    this.#askedAt = now;
    this.#worker.postMessage("checkpoint");
  }

  /** Stops the thread (after its checkpoint under way) and turns the connection's automatic checkpoint back on. */
  async close(): Promise<void> {
    this.#worker.postMessage("close");
    this.#stop();
    await this.#exited;
  }

  #message(m: ThreadMessage): void {
    if (m.type === "error") {
      this.#worker.postMessage("close");
      return this.#stop();
    }
    this.#asked = false;
    if (m.log >= FINISH_AT_FRAMES) this.#finish = true;
  }

  #stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#connection.open) this.#connection.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  }
}
