import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { commitIsDurable, type BatchDurability } from "../store/batch-durability.js";

/** Most items written in one transaction. */
const BATCH_MAX = 1000;

interface Waiter<I, O> {
  item: I;
  resolve(out: O): void;
  reject(error: unknown): void;
}

/** What a `GroupCommit` does around its transactions. */
export interface GroupCommitOptions<O> {
  /**
   * Runs once a batch committed (readable, and kept through a crash of this process), before it is durable: what may
   * go on before the sync (sending commands on) goes here.
   */
  committed?: (results: O[]) => void;
  /** Runs once a batch is durable; the items' promises settle after it. */
  after?: (results: O[]) => Promise<void>;
  /**
   * How a batch becomes durable. Default: its COMMIT is (synchronous=FULL). SQLite's `WalSync` commits without the
   * fsync on the event loop and syncs the WAL off it, one sync for the batches committed meanwhile.
   */
  durability?: BatchDurability;
  /**
   * How long a batch gathers items before its transaction starts, ms: 0 (default) the next turn of the event loop, so
   * what arrives in one read of the sockets shares it. Worth more where nobody waits for the commit (delivery
   * reports): each transaction costs about as much CPU as a few hundred items in it.
   */
  gatherMs?: number;
  /**
   * Least time between two syncs this writer asks for, ms: 0 (default) asks for one after each batch. With more, a
   * batch committed within that time of this writer's last sync request waits for one shared sync at its end, so a
   * steady stream of small batches (device_publish at 1,000/s, each REST call its own batch) costs a sync every few
   * ms instead of one per batch: each sync costs the process 0.2–0.3 ms of CPU (the kernel's `fdatasync`), more than
   * the commit. Only the items' answers wait; `committed` still runs at once. A batch after a quiet time syncs at once.
   */
  syncEveryMs?: number;
  /**
   * Least time between the starts of two transactions, ms, when `gatherMs` is 0: 0 (default) none. With more, items
   * arriving within that time of the last transaction's start wait until it has passed and share the next one, so
   * calls arriving one at a time at a high rate (device_publish at 1,000/s, each REST call alone in its turn of the
   * event loop) share transactions: each costs the process about 0.2 ms of CPU besides its rows (kysely's
   * transaction, COMMIT writing the same leaf pages of the table and its indexes again). After a quiet time the first
   * item's transaction starts at the next turn of the event loop, as without it.
   */
  commitEveryMs?: number;
}

/**
 * Writes items with group commit: those that arrive while a transaction runs form the next one, so a group's 10,000
 * acknowledgements (or 1,000 commands a second) cost a few commits instead of one per item, each with its fsync; a
 * lone item is committed at once. `commit(tx, items)` writes a batch inside its transaction and answers one result
 * per item, in order. An item's promise settles once its batch is durable and `after` ran, with the batch's error if
 * any. The next batch does not wait for the previous one's sync.
 */
export class GroupCommit<I, O> {
  #pending: Array<Waiter<I, O>> = [];
  #active: Promise<void> | undefined;
  /** Batches committed whose sync or `after` still runs. */
  readonly #settling = new Set<Promise<void>>();
  readonly #durability: BatchDurability;
  /** The sync that batches committed now will share, while it waits for `syncEveryMs` to pass. */
  #nextSync: Promise<void> | undefined;
  /** When this writer's last transaction started, ms of `performance.now()`. */
  #lastCommitAt = -Infinity;
  /** When this writer last asked for a sync, ms of `performance.now()`. */
  #lastSyncAt = -Infinity;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly commit: (tx: Kysely<Database>, items: I[]) => Promise<O[]>,
    private readonly options: GroupCommitOptions<O> = {},
  ) {
    this.#durability = options.durability ?? commitIsDurable;
  }

  /** Queues an item; resolves with its result once its batch is durable and `after` ran. */
  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      this.#active ??= this.#drain();
    });
  }

  /** Waits for every queued item. */
  async idle(): Promise<void> {
    while (this.#active || this.#settling.size > 0) await Promise.all([this.#active, ...this.#settling]);
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        await this.#gather();
        const batch = this.#pending.splice(0, BATCH_MAX);
        this.#lastCommitAt = performance.now();
        try {
          const results = await this.#durability.transaction(this.db, (tx) =>
            this.commit(
              tx,
              batch.map((w) => w.item),
            ),
          );
          this.options.committed?.(results);
          // The next batch need not wait for this one's sync and follow-up.
          const settling = this.#sync()
            .then(() => this.options.after?.(results))
            .then(
              () => batch.forEach((w, i) => w.resolve(results[i]!)),
              (err: unknown) => batch.forEach((w) => w.reject(err)),
            );
          this.#settling.add(settling);
          void settling.finally(() => this.#settling.delete(settling));
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      this.#active = undefined;
    }
  }

  /** A sync that covers every batch committed so far, asked for at most every `syncEveryMs` (see the option). */
  #sync(): Promise<void> {
    if (this.#nextSync) return this.#nextSync;
    const wait = this.#lastSyncAt + (this.options.syncEveryMs ?? 0) - performance.now();
    if (wait <= 0) {
      this.#lastSyncAt = performance.now();
      return this.#durability.sync();
    }
    const next = new Promise((resolve) => setTimeout(resolve, wait)).then(() => {
      this.#nextSync = undefined;
      this.#lastSyncAt = performance.now();
      return this.#durability.sync();
    });
    this.#nextSync = next;
    return next;
  }

  #gather(): Promise<void> {
    const ms = this.options.gatherMs || this.#lastCommitAt + (this.options.commitEveryMs ?? 0) - performance.now();
    return new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
  }
}
