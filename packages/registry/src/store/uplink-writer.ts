import type { Insertable, Kysely, Transaction } from "kysely";
import type { DeviceEventsTable, Database } from "./schema.js";
import { latestStoredCopy, repeats, type ResendCopy } from "./resend-match.js";
import { uplinkBatchRows, uplinkBatchSeconds, uplinkWriterQueue } from "../ops/registry-metrics.js";
import type { Engine, UplinkOutcome, UplinkRecord, UplinkWriter } from "./store.js";
import { appendEvents, eventsCommitted, type NewEvent } from "../northbound/events.js";
import { uplinkMetadata } from "./uplink-metadata.js";
import { commitIsDurable, type BatchDurability } from "./batch-durability.js";

/** Default most rows in one uplink transaction. */
export const DEFAULT_BATCH_MAX_ROWS = 500;
/**
 * Default longest wait, in ms, from a batch's first row to its flush: none. A lone uplink commits at once; under load
 * batches still grow, because the rows that arrive while one batch commits form the next (group commit).
 */
export const DEFAULT_BATCH_MAX_DELAY_MS = 0;

/** Columns bound per inserted row (see `toRow`). */
const COLUMNS_PER_ROW = 12;
/**
 * Most bound parameters in one statement: SQLite's default
 * SQLITE_MAX_VARIABLE_NUMBER (32766 since 3.32) and PostgreSQL's protocol
 * limit (65535). Batches larger than this are split into several INSERTs
 * inside the same transaction.
 */
const MAX_PARAMETERS: Record<Engine, number> = { sqlite: 32_766, postgres: 65_535 };

interface Waiter {
  record: UplinkRecord;
  resolve(outcome: UplinkOutcome): void;
  reject(error: unknown): void;
}

/** Tuning of a BatchedUplinkWriter; defaults above. */
export interface BatchOptions {
  batchMaxRows?: number | undefined;
  batchMaxDelayMs?: number | undefined;
}

/**
 * The UplinkWriter of `store.ts`: queues uplinks and writes each batch as
 * multi-row `INSERT … ON CONFLICT (msg_key) DO NOTHING RETURNING msg_key` in
 * ONE transaction, with the northbound `uplink` event of each newly stored
 * row (same transaction). A batch is flushed when `batchMaxRows` are queued
 * or `batchMaxDelayMs` after its first row (0: in the next turn of the event loop, so the rows of one burst share
 * it). One flush runs at a time; rows that arrive meanwhile form the next batch (so batches grow under load). A write
 * resolves once its batch is committed and synced (`BatchDurability`); the next batch may commit during that sync.
 * When a transaction or its sync fails, every write of that batch rejects with its error; later batches are
 * unaffected.
 */
export class BatchedUplinkWriter implements UplinkWriter {
  readonly #db: Kysely<Database>;
  readonly #maxRows: number;
  readonly #maxDelayMs: number;
  readonly #rowsPerStatement: number;
  readonly #durability: BatchDurability;
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
  ) {
    this.#db = db;
    this.#durability = durability;
    this.#maxRows = Math.max(1, options.batchMaxRows ?? DEFAULT_BATCH_MAX_ROWS);
    this.#maxDelayMs = Math.max(0, options.batchMaxDelayMs ?? DEFAULT_BATCH_MAX_DELAY_MS);
    this.#rowsPerStatement = Math.floor(MAX_PARAMETERS[engine] / COLUMNS_PER_ROW);
  }

  /** Queues one uplink; resolves after its batch committed. Rejects after `close()`. */
  write(record: UplinkRecord): Promise<UplinkOutcome> {
    if (this.#closed) return Promise.reject(new Error("uplink writer is closed"));
    return new Promise<UplinkOutcome>((resolve, reject) => {
      this.#pending.push({ record, resolve, reject });
      uplinkWriterQueue().inc();
      if (this.#pending.length >= this.#maxRows) this.#kick();
      else if (this.#active !== undefined) this.#again = true;
      else if (this.#timer === undefined && this.#immediate === undefined) {
        if (this.#maxDelayMs === 0) this.#immediate = setImmediate(() => this.#kick());
        else this.#timer = setTimeout(() => this.#kick(), this.#maxDelayMs);
      }
    });
  }

  /** Commits everything queued so far (and waits for a flush or a sync under way). */
  async flush(): Promise<void> {
    while (this.#pending.length > 0 || this.#active !== undefined || this.#syncing.size > 0) {
      if (this.#active === undefined && this.#pending.length > 0) this.#kick();
      await (this.#active ?? Promise.allSettled(this.#syncing));
    }
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
        uplinkWriterQueue().dec(batch.length);
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
    const stored = new Set<string>();
    const timer = uplinkBatchSeconds().startTimer();
    uplinkBatchRows().observe(batch.length);
    try {
      const now = Date.now();
      const rows: Insertable<DeviceEventsTable>[] = [];
      await this.#durability.transaction(this.#db, async (trx) => {
        // Possible resends (rare) are looked up first; a batch without one pays for nothing more.
        const resent = batch.some((w) => w.record.maybeResend) ? await resendsOf(trx, batch) : undefined;
        for (const waiter of batch) {
          const same = byKey.get(waiter.record.msgKey);
          if (same !== undefined) {
            same.push(waiter);
          } else {
            byKey.set(waiter.record.msgKey, [waiter]);
            // A resend of a stored uplink is acked as a duplicate: its key gets no row.
            if (!resent?.has(waiter)) rows.push(toRow(waiter.record, now));
          }
        }
        for (let at = 0; at < rows.length; at += this.#rowsPerStatement) {
          const inserted = await trx
            .insertInto("deviceEvents")
            .values(rows.slice(at, at + this.#rowsPerStatement))
            .onConflict((oc) => oc.column("msgKey").doNothing())
            .returning("msgKey")
            .execute();
          for (const row of inserted) stored.add(row.msgKey);
        }
        // The feed's uplink events, in this transaction: only what was stored now (a replay is no new event).
        await appendEvents(trx, rows.filter((r) => stored.has(r.msgKey)).map(uplinkEvent), now);
      });
      if (stored.size > 0) eventsCommitted();
    } catch (error) {
      timer();
      for (const waiter of batch) waiter.reject(error);
      return;
    }
    const synced = this.#durability.sync().then(
      () => {
        timer();
        // A key repeated inside the batch is stored once: its first write gets the outcome.
        for (const [key, waiters] of byKey) {
          waiters.forEach((w, i) => w.resolve(i === 0 && stored.has(key) ? "stored" : "duplicate"));
        }
      },
      (error: unknown) => {
        timer();
        for (const waiter of batch) waiter.reject(error);
      },
    );
    this.#syncing.add(synced);
    void synced.finally(() => this.#syncing.delete(synced));
  }
}

/**
 * The waiters of `batch` flagged `maybeResend` whose message is already stored (`latestStoredCopy`) or is earlier in
 * the same batch: the latest copy with the same device and resend id decides (`repeats`).
 */
async function resendsOf(trx: Transaction<Database>, batch: readonly Waiter[]): Promise<Set<Waiter>> {
  const resent = new Set<Waiter>();
  const latest = new Map<string, ResendCopy>();
  for (const waiter of batch) {
    const r = waiter.record;
    if (!r.resendId) continue;
    const id = `${r.tenantId}\0${r.deviceIntId}\0${r.resendId}`;
    if (r.maybeResend) {
      const copy = latest.get(id) ?? (await latestStoredCopy(trx, r));
      if (copy !== undefined && repeats(copy, r)) {
        resent.add(waiter);
        continue;
      }
    }
    latest.set(id, r);
  }
  return resent;
}

/**
 * The northbound event of a stored uplink: its topic, QoS, payload (base64), receive time, and how it arrived
 * (`metadata`, e.g. a LoRaWAN uplink's gateways) when its adapter told.
 */
function uplinkEvent(r: Insertable<DeviceEventsTable>): NewEvent {
  return {
    tenantId: r.tenantId,
    deviceIntId: r.deviceIntId,
    type: "uplink",
    time: r.msgTime,
    data: {
      topic: r.topic,
      qos: r.qos,
      payload: Buffer.from(r.payload).toString("base64"),
      ...(r.gatewayIntId !== null && r.gatewayIntId !== undefined ? { viaGateway: true } : {}),
      ...(r.metadata ? { metadata: uplinkMetadata(r.metadata) } : {}),
    },
  };
}

function toRow(r: UplinkRecord, now: number): Insertable<DeviceEventsTable> {
  // A Buffer view (no copy): pg sends Buffers as bytea; better-sqlite3 binds them as blobs.
  const payload = Buffer.from(r.payload.buffer, r.payload.byteOffset, r.payload.byteLength);
  return {
    msgKey: r.msgKey,
    tenantId: r.tenantId,
    deviceIntId: r.deviceIntId,
    gatewayIntId: r.gatewayIntId,
    topic: r.topic,
    payload,
    ip: r.ip,
    qos: r.qos,
    msgTime: r.msgTime,
    createAt: now,
    metadata: r.metadata ?? null,
    resendId: r.resendId ?? null,
  };
}
