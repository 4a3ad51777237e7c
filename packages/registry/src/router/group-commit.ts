import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";

/** Most items written in one transaction. */
const BATCH_MAX = 1000;

interface Waiter<I, O> {
  item: I;
  resolve(out: O): void;
  reject(error: unknown): void;
}

/**
 * Writes items with group commit: those that arrive while a transaction runs form the next one, so a group's 10,000
 * acknowledgements cost a few commits, each with its fsync, instead of one per item; a lone item is committed at
 * once. `commit(tx, items)` writes a batch inside its transaction and answers one result per item, in order;
 * `after(results)` runs once it committed. An item's promise settles after both, with the batch's error if any.
 * (Tried for new control logs too, it made device_publish far slower in bench:commands; not understood yet.)
 */
export class GroupCommit<I, O> {
  #pending: Array<Waiter<I, O>> = [];
  #active: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly commit: (tx: Kysely<Database>, items: I[]) => Promise<O[]>,
    private readonly after: (results: O[]) => Promise<void> = async () => {},
  ) {}

  /** Queues an item; resolves with its result once its batch committed and `after` ran. */
  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      this.#active ??= this.#drain();
    });
  }

  /** Waits for every queued item. */
  async idle(): Promise<void> {
    while (this.#active) await this.#active;
  }

  async #drain(): Promise<void> {
    await Promise.resolve(); // items queued in this same tick join the first batch
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0, BATCH_MAX);
        try {
          const results = await this.db.transaction().execute((tx) =>
            this.commit(
              tx,
              batch.map((w) => w.item),
            ),
          );
          // The next batch need not wait for this one's follow-up.
          void this.after(results).then(
            () => batch.forEach((w, i) => w.resolve(results[i]!)),
            (err: unknown) => batch.forEach((w) => w.reject(err)),
          );
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      this.#active = undefined;
    }
  }
}
