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
        try {
          const results = await this.#durability.transaction(this.db, (tx) =>
            this.commit(
              tx,
              batch.map((w) => w.item),
            ),
          );
          this.options.committed?.(results);
          // The next batch need not wait for this one's sync and follow-up.
          const settling = this.#durability
            .sync()
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

  #gather(): Promise<void> {
    const ms = this.options.gatherMs ?? 0;
    return new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
  }
}
