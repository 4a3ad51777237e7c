import { closeSync, openSync, readSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { endianness } from "node:os";
import type { Kysely, Transaction } from "kysely";
import BetterSqlite3 from "better-sqlite3";
import type { BatchDurability, WalSync } from "./batch-durability.js";
import type { WriteLock } from "./write-lock.js";
import type { Database } from "./schema.js";
import { sqliteConnectionOf } from "./sqlite.js";

/** WAL frames not yet copied into the database file past which a checkpoint runs (SQLite's own default). */
const CHECKPOINT_FRAMES = 1000;
/** How often, ms, the WAL is looked at besides after each batch's sync (other writers do not sync through here). */
const CHECK_EVERY_MS = 1000;
/**
 * SQLite's automatic checkpoint, kept as a backstop far above CHECKPOINT_FRAMES: it runs only if these checkpoints
 * stop keeping up, and then as SQLite always did, on the event loop. After a failure it is set back to
 * CHECKPOINT_FRAMES.
 */
const BACKSTOP_FRAMES = 10 * CHECKPOINT_FRAMES;

/**
 * Where the wal-index (`-shm`) keeps the WAL's last committed frame (`mxFrame` of the first header copy) and how far
 * checkpoints have copied (`nBackfill`), in the machine's byte order: SQLite's documented WAL-index format
 * (sqlite.org/walformat.html, "the WAL-index header" and "the checkpoint info").
 */
const MX_FRAME = 16;
const N_BACKFILL = 96;
/** The wal-index version that format describes (its first field); another one is not read. */
const WAL_INDEX_VERSION = 3007000;

/**
 * The WAL's last committed frame and how many frames checkpoints have copied, from its wal-index (`-shm`) file.
 * @throws Error when the file has another version of the format (the caller hands checkpoints back to SQLite).
 */
export function readWalIndex(shmFd: number): { frames: number; copied: number } {
  const header = Buffer.alloc(N_BACKFILL + 4);
  if (readSync(shmFd, header, 0, header.length, 0) < header.length) return { frames: 0, copied: 0 };
  const u32 = (offset: number) => (endianness() === "LE" ? header.readUInt32LE(offset) : header.readUInt32BE(offset));
  // All zeros: no connection has written the header yet, so nothing is in the WAL.
  if (u32(0) === 0) return { frames: 0, copied: 0 };
  if (u32(0) !== WAL_INDEX_VERSION) throw new Error(`wal-index version ${u32(0)}, not ${WAL_INDEX_VERSION}`);
  return { frames: u32(MX_FRAME), copied: u32(N_BACKFILL) };
}

/**
 * SQLite's batches made durable by `WalSync`, with the WAL's checkpoints taken off the event loop.
 *
 * SQLite checkpoints inside the COMMIT that takes the WAL past 1,000 frames: it syncs the WAL, copies the frames
 * into the database file and syncs that, all on the event loop. That commit took 8–20 ms, several times a second under
 * ingest with a data model, and was the central node's regular stall (docs/performance.md, "The SQLite write path").
 * Here the checkpoint holds the connection (no query runs meanwhile, so no frame is added) and does the same steps
 * with both syncs on libuv's thread pool: the WAL's sync (`WalSync.sync`), the copy at `synchronous = OFF` (about
 * 1 ms on the loop), then the database file's fdatasync. Holding the connection until then is what lets the next
 * write start the WAL over, as after SQLite's own checkpoint: every frame is copied, and none is written over before
 * the database file holds it durably.
 *
 * If that fdatasync fails, a read transaction on a second connection stays open (it was opened before the copy):
 * SQLite then never starts the WAL over, so the frames stay in the WAL, which a restart's recovery replays. Any
 * failure is reported, no checkpoint runs here again, and SQLite's automatic checkpoint takes over at its default.
 */
export class CheckpointedWal implements BatchDurability {
  readonly #wal: WalSync;
  readonly #db: Kysely<Database>;
  readonly #dbFile: string;
  readonly #onError: (error: Error) => void;
  readonly #timer: NodeJS.Timeout;
  readonly #datasync: (file: FileHandle) => Promise<void>;
  readonly #lock: WriteLock | undefined;
  #shmFd: number | undefined;
  #dbHandle: FileHandle | undefined;
  #guard: BetterSqlite3.Database | undefined;
  #running: Promise<void> | undefined;
  #failed = false;
  #closed = false;

  /**
   * @param dbFile the database file (its `-shm` and a second connection are opened beside it).
   * @param onError told when a checkpoint fails (the store goes on; see the class).
   * @param opts.datasync syncs the database file after the copy (tests make it fail).
   * @param opts.lock the write lock another thread's connection takes too: held from the WAL's sync to the end of the
   *   copy, so that no frame the copy takes was committed after that sync.
   */
  constructor(
    wal: WalSync,
    db: Kysely<Database>,
    dbFile: string,
    onError: (error: Error) => void,
    opts: { datasync?: (file: FileHandle) => Promise<void>; lock?: WriteLock } = {},
  ) {
    this.#wal = wal;
    this.#db = db;
    this.#dbFile = dbFile;
    this.#onError = onError;
    this.#datasync = opts.datasync ?? ((file) => file.datasync());
    this.#lock = opts.lock;
    sqliteConnectionOf(db)?.pragma(`wal_autocheckpoint = ${BACKSTOP_FRAMES}`);
    this.#timer = setInterval(() => this.poke(), CHECK_EVERY_MS).unref();
  }

  transaction<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.#wal.transaction(db, work);
  }

  async sync(): Promise<void> {
    await this.#wal.sync();
    this.poke();
  }

  /** Starts a checkpoint when the WAL holds CHECKPOINT_FRAMES not yet copied and none is running. Never throws. */
  poke(): void {
    if (this.#running || this.#failed || this.#closed) return;
    try {
      this.#shmFd ??= openSync(`${this.#dbFile}-shm`, "r");
      const { frames, copied } = readWalIndex(this.#shmFd);
      if (frames - copied < CHECKPOINT_FRAMES) return;
    } catch (error) {
      this.#fail(error as Error);
      return;
    }
    this.#running = this.checkpoint()
      .catch((error: Error) => this.#fail(error))
      .finally(() => (this.#running = undefined));
  }

  /** Copies every frame of the WAL into the database file, durably, with the syncs off the event loop. */
  async checkpoint(): Promise<void> {
    // Holding the connection, and the write lock when another thread writes: no frame is committed from the WAL's
    // sync to the end of the copy, so every frame the copy takes is in that sync.
    await this.#db.connection().execute(async () => {
      const sqlite = sqliteConnectionOf(this.#db)!;
      const guard = this.#openGuard();
      await this.#lock?.acquire();
      try {
        await this.#wal.sync();
        guard.prepare("begin").run();
        guard.prepare("select 1 from sqlite_master limit 1").get();
        sqlite.pragma("synchronous = OFF");
        try {
          sqlite.pragma("wal_checkpoint(PASSIVE)");
        } finally {
          sqlite.pragma("synchronous = FULL");
        }
      } finally {
        this.#lock?.release();
      }
      this.#dbHandle ??= await open(this.#dbFile, "r");
      await this.#datasync(this.#dbHandle); // on failure the guard stays open: the WAL is not started over
      guard.prepare("commit").run();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#running;
    await this.#wal.close();
    if (this.#shmFd !== undefined) closeSync(this.#shmFd);
    await this.#dbHandle?.close();
    if (!this.#failed) this.#guard?.close();
  }

  #openGuard(): BetterSqlite3.Database {
    this.#guard ??= new BetterSqlite3(this.#dbFile, { fileMustExist: true });
    return this.#guard;
  }

  #fail(error: Error): void {
    this.#failed = true;
    sqliteConnectionOf(this.#db)?.pragma(`wal_autocheckpoint = ${CHECKPOINT_FRAMES}`);
    this.#onError(new Error(`WAL checkpoint of ${this.#dbFile} failed: ${error.message}`, { cause: error }));
  }
}
