import type { Kysely, Transaction } from "kysely";
import type { Database } from "./schema.js";
import { latestStoredCopy, repeats, type ResendCopy } from "./resend-match.js";
import type { Engine, StoredListener, UplinkOutcome, UplinkRecord, UplinkWriter, UplinkWritten } from "./store.js";
import {
  NO_UPLINK_METRICS,
  type StoreHooks,
  type StoredUplinkRef,
  type UplinkAnswer,
  type UplinkAnswers,
  type UplinkEvents,
  type UplinkWriterMetrics,
} from "./store-hooks.js";
import { commitIsDurable, type BatchDurability } from "./batch-durability.js";
import { uplinkRows, type UplinkRows } from "./uplink-rows.js";
import { RecentResendIds } from "./recent-resend-ids.js";
import { addUplinkCounts } from "./uplink-counts.js";

/** Default most rows in one uplink transaction. */
export const DEFAULT_BATCH_MAX_ROWS = 500;
/**
 * Default longest wait, in ms, from a batch's first row to its flush: none. A lone uplink commits at once; under load
 * batches still grow, because the rows that arrive while one batch commits form the next (group commit).
 */
export const DEFAULT_BATCH_MAX_DELAY_MS = 0;

interface Waiter {
  record: UplinkRecord;
  written: UplinkWritten;
}

/** Tuning of a BatchedUplinkWriter; defaults above. */
export interface BatchOptions {
  batchMaxRows?: number | undefined;
  batchMaxDelayMs?: number | undefined;
  /** Most resend ids a SQLite store keeps in memory for its resend lookup (RecentResendIds; default 200,000). */
  recentResendIds?: number | undefined;
}

/**
 * The UplinkWriter of `store.ts`: queues uplinks and writes each batch's rows (`UplinkRows`: a key stored before gets
 * no row) in ONE transaction, with the northbound `uplink` event of each newly stored row (same transaction, through
 * the `uplinkEvents` hook; its metrics through `uplinkMetrics`). A
 * batch is flushed when `batchMaxRows` are queued or `batchMaxDelayMs` after its first row (0: in the next turn of
 * the event loop, so the rows of one burst share it). One flush runs at a time; rows that arrive meanwhile form the
 * next batch (so batches grow under load). A write resolves once its batch is committed and synced
 * (`BatchDurability`); the next batch may commit during that sync. When a transaction or its sync fails, every write
 * of that batch rejects with its error; later batches are unaffected.
 */
export class BatchedUplinkWriter implements UplinkWriter {
  readonly #db: Kysely<Database>;
  readonly #maxRows: number;
  readonly #maxDelayMs: number;
  readonly #rows: UplinkRows;
  readonly #durability: BatchDurability;
  readonly #events: UplinkEvents | undefined;
  readonly #answers: UplinkAnswers | undefined;
  readonly #metrics: UplinkWriterMetrics;
  /**
   * The resend lookup in memory, on SQLite only: the store is then the only writer of its database (one node holds
   * the data folder's lock). PostgreSQL may have other nodes writing the same device's uplinks (its session may move),
   * so it reads the database each time (`latestStoredCopy`).
   */
  readonly #recent: RecentResendIds | undefined;
  readonly #storedListeners = new Set<StoredListener>();
  /** Batches committed whose sync has not settled yet (flush waits for them). */
  readonly #syncing = new Set<Promise<void>>();
  #pending: Waiter[] = [];
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #active: Promise<void> | undefined;
  #again = false;
  #closed = false;

  constructor(
    db: Kysely<Database>,
    engine: Engine,
    options: BatchOptions = {},
    durability: BatchDurability = commitIsDurable,
    hooks: Pick<StoreHooks, "uplinkEvents" | "uplinkMetrics" | "uplinkAnswers"> = {},
  ) {
    this.#db = db;
    this.#durability = durability;
    this.#events = hooks.uplinkEvents;
    this.#answers = hooks.uplinkAnswers;
    this.#metrics = hooks.uplinkMetrics ?? NO_UPLINK_METRICS;
    this.#maxRows = Math.max(1, options.batchMaxRows ?? DEFAULT_BATCH_MAX_ROWS);
    this.#maxDelayMs = Math.max(0, options.batchMaxDelayMs ?? DEFAULT_BATCH_MAX_DELAY_MS);
    this.#recent = engine === "sqlite" ? new RecentResendIds(options.recentResendIds) : undefined;
    this.#rows = uplinkRows(db, engine);
  }

  /** Queues one uplink; resolves after its batch committed. Rejects after `close()`. */
  write(record: UplinkRecord): Promise<UplinkOutcome> {
    return new Promise<UplinkOutcome>((resolve, reject) =>
      this.writeThen(record, (error, outcome) => (error === undefined ? resolve(outcome!) : reject(error))),
    );
  }

  /** `write` with a callback (UplinkWritten): called once, never before this returns. */
  writeThen(record: UplinkRecord, written: UplinkWritten): void {
    if (this.#closed) return process.nextTick(written, new Error("uplink writer is closed"));
    this.#pending.push({ record, written });
    this.#metrics.enqueued();
    if (this.#pending.length >= this.#maxRows) this.#kick();
    else if (this.#active !== undefined) this.#again = true;
    else if (this.#timer === undefined && this.#immediate === undefined) {
      if (this.#maxDelayMs === 0) this.#immediate = setImmediate(() => this.#kick());
      else this.#timer = setTimeout(() => this.#kick(), this.#maxDelayMs);
    }
  }

  /** Commits everything queued so far (and waits for a flush or a sync under way). */
  async flush(): Promise<void> {
    while (this.#pending.length > 0 || this.#active !== undefined || this.#syncing.size > 0) {
      if (this.#active === undefined && this.#pending.length > 0) this.#kick();
      await (this.#active ?? Promise.allSettled(this.#syncing));
    }
  }

  onStored(listener: StoredListener): () => void {
    this.#storedListeners.add(listener);
    return () => this.#storedListeners.delete(listener);
  }

  /** Flushes, then refuses further writes. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
    await this.#durability.close();
  }

  #kick(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    clearImmediate(this.#immediate);
    this.#immediate = undefined;
    if (this.#active !== undefined) {
      this.#again = true;
      return;
    }
    // A timer may outlive the rows it was set for (another pass took them).
    if (this.#pending.length === 0) return;
    this.#active = this.#drain();
  }

  async #drain(): Promise<void> {
    // Settle nothing before #kick has stored this promise in #active: the
    // `finally` below must clear the promise it belongs to, never a stale one.
    await Promise.resolve();
    try {
      do {
        this.#again = false;
        const batch = this.#pending.splice(0, this.#maxRows);
        this.#metrics.dequeued(batch.length);
        // More than one batch was waiting: the rest goes right after this one.
        if (this.#pending.length > 0) this.#again = true;
        if (batch.length > 0) await this.#commit(batch);
      } while (this.#again);
    } finally {
      this.#active = undefined;
    }
  }

  /** Writes one batch; settles every waiter of it once synced (without waiting for that here), never throws. */
  async #commit(batch: Waiter[]): Promise<void> {
    const byKey = new Map<string, Waiter[]>();
    let stored = new Map<string, number>();
    const timer = this.#metrics.batch(batch.length);
    try {
      const now = Date.now();
      const firsts: UplinkRecord[] = [];
      await this.#durability.transaction(this.#db, async (trx) => {
        // Possible resends (rare) are looked up first; a batch without one pays for nothing more.
        const resent = batch.some((w) => w.record.maybeResend) ? await resendsOf(trx, batch, this.#recent) : undefined;
        for (const waiter of batch) {
          const same = byKey.get(waiter.record.msgKey);
          if (same !== undefined) {
            same.push(waiter);
          } else {
            byKey.set(waiter.record.msgKey, [waiter]);
            // A resend of a stored uplink is acked as a duplicate: its key gets no row.
            if (resent?.has(waiter)) continue;
            firsts.push(waiter.record);
          }
        }
        stored = await this.#rows.insert(trx, firsts, now);
        // The feed's uplink events and the tenants' uplink counts, in this transaction: only what was stored now (a
        // replay is no new event).
        const events: StoredUplinkRef[] = [];
        const counts = new Map<string, number>();
        let answers: UplinkAnswer[] | undefined;
        for (const r of firsts) {
          const uplinkId = stored.get(r.msgKey);
          if (uplinkId === undefined) continue;
          events.push({ tenantId: r.tenantId, uplinkId });
          counts.set(r.tenantId, (counts.get(r.tenantId) ?? 0) + 1);
          if (r.answerKey)
            (answers ??= []).push({ deviceIntId: r.deviceIntId, answerKey: r.answerKey, payload: r.payload });
        }
        await this.#events?.append(trx, events, now);
        await addUplinkCounts(trx, counts);
        // Answers to commands (MQTT 5.0 request/response) are rare: a batch without one pays for nothing.
        if (answers !== undefined) await this.#answers?.settle(trx, answers, now);
      });
      this.#recent?.stored(firsts, stored);
      if (stored.size > 0) {
        for (const listener of this.#storedListeners) notify(listener, firsts, stored);
        this.#events?.committed();
      }
    } catch (error) {
      // Committed or not, nobody knows: what the lookup holds in memory is read again.
      this.#recent?.clear();
      timer();
      for (const waiter of batch) settle(waiter, asError(error));
      return;
    }
    const synced = this.#durability.sync().then(
      () => {
        timer();
        // A key repeated inside the batch is stored once: its first write gets the outcome.
        for (const [key, waiters] of byKey) {
          waiters.forEach((w, i) => settle(w, undefined, i === 0 && stored.has(key) ? "stored" : "duplicate"));
        }
      },
      (error: unknown) => {
        timer();
        for (const waiter of batch) settle(waiter, asError(error));
      },
    );
    this.#syncing.add(synced);
    void synced.finally(() => this.#syncing.delete(synced));
  }
}

/** What a batch failed with, as an Error (a write's callback tells an error from success by its presence). */
const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** Calls a stored listener; one that throws neither fails the batch nor keeps the others from their call. */
function notify(listener: StoredListener, records: readonly UplinkRecord[], ids: ReadonlyMap<string, number>): void {
  try {
    listener(records, ids);
  } catch (thrown) {
    throwLater(thrown);
  }
}

/** Throws `thrown` again on the next tick, as uncaught as a throw in a promise's handler would have been. */
function throwLater(thrown: unknown): void {
  process.nextTick(() => {
    throw thrown;
  });
}

/**
 * Calls a waiter's `written`. One that throws does not keep the rest of its batch from settling: its error is thrown
 * again on the next tick, as uncaught as a throw in a promise's handler would have been.
 */
function settle(waiter: Waiter, error: Error | undefined, outcome?: UplinkOutcome): void {
  try {
    waiter.written(error, outcome);
  } catch (thrown) {
    throwLater(thrown);
  }
}

/**
 * The waiters of `batch` flagged `maybeResend` whose message is already stored (`latestStoredCopy`) or is earlier in
 * the same batch: the latest copy with the same device and resend id decides (`repeats`). `recent`, when given, answers
 * for the database.
 */
async function resendsOf(
  trx: Transaction<Database>,
  batch: readonly Waiter[],
  recent: RecentResendIds | undefined,
): Promise<Set<Waiter>> {
  const resent = new Set<Waiter>();
  const latest = new Map<string, ResendCopy>();
  for (const waiter of batch) {
    const r = waiter.record;
    if (!r.resendId) continue;
    const id = `${r.tenantId}\0${r.deviceIntId}\0${r.resendId}`;
    if (r.maybeResend) {
      const copy = latest.get(id) ?? (await (recent ? recent.latestStoredCopy(trx, r) : latestStoredCopy(trx, r)));
      if (copy !== undefined && repeats(copy, r)) {
        resent.add(waiter);
        continue;
      }
    }
    latest.set(id, r);
  }
  return resent;
}
