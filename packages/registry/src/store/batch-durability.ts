import { open, type FileHandle } from "node:fs/promises";
import { CompiledQuery, type Kysely, type Transaction } from "kysely";
import type { Database } from "./schema.js";

/**
 * How an uplink batch becomes durable. `transaction` runs the batch's work and resolves once it is committed and
 * readable; `sync` resolves once everything committed before the call would survive a power cut. The writer acks a
 * batch only after both, and may commit the next batch while the previous one syncs.
 */
export interface BatchDurability {
  transaction<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL: its COMMIT is durable and does not hold the event loop, so there is nothing more to do. */
export const commitIsDurable: BatchDurability = {
  transaction: (db, work) => db.transaction().execute(work),
  sync: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

/** The pragmas around a batch, compiled once: kysely built and compiled both for every batch (2 % of the central). */
const SYNC_NORMAL = CompiledQuery.raw("pragma synchronous = NORMAL");
const SYNC_FULL = CompiledQuery.raw("pragma synchronous = FULL");

/**
 * SQLite in WAL mode: the batch commits with synchronous=NORMAL (its WAL frames go to the OS, no fsync on the event
 * loop: that fsync was a fifth of the central node's CPU profile under MQTT load), then one fdatasync of the WAL file
 * on libuv's thread pool makes it durable, as synchronous=FULL would have. Syncs are grouped: while one runs, every
 * batch committed meanwhile waits for the single next one. Every other transaction keeps synchronous=FULL.
 */
export class WalSync implements BatchDurability {
  readonly #walFile: string;
  #handle: Promise<FileHandle> | undefined;
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;

  /** @param walFile the database's `-wal` file (it exists once the database has been written in WAL mode). */
  constructor(walFile: string) {
    this.#walFile = walFile;
  }

  transaction<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    // The pragma is per connection and cannot change inside a transaction: the connection is held throughout.
    return db.connection().execute(async (conn) => {
      await conn.executeQuery(SYNC_NORMAL);
      try {
        return await conn.transaction().execute(work);
      } finally {
        await conn.executeQuery(SYNC_FULL);
      }
    });
  }

  sync(): Promise<void> {
    if (this.#running === undefined) return this.#start();
    // The running sync may have begun before this caller's commit: it needs the next one, shared by all who wait.
    this.#next ??= this.#running
      .catch(() => undefined)
      .then(() => {
        this.#next = undefined;
        return this.#start();
      });
    return this.#next;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.#running, this.#next]);
    const handle = this.#handle;
    this.#handle = undefined;
    if (handle) await (await handle.catch(() => undefined))?.close();
  }

  #start(): Promise<void> {
    const running = (async () => {
      this.#handle ??= open(this.#walFile, "r");
      try {
        await (await this.#handle).datasync();
      } catch (error) {
        this.#handle = undefined; // opened again next time
        throw new Error(`syncing ${this.#walFile} failed: ${(error as Error).message}`, { cause: error });
      }
    })().finally(() => {
      if (this.#running === running) this.#running = undefined;
    });
    this.#running = running;
    return running;
  }
}
