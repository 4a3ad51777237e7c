import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { commitIsDurable, type BatchDurability } from "../store/batch-durability.js";
import { PIPELINE_CURSOR_KEY } from "../store/pipeline-cursor-key.js";
import type { Database } from "../store/schema.js";
import type { UplinkRecord } from "../store/store.js";
import { decodeEvents, type StreamedDevice } from "./decode-events.js";
import { nextEvents, type EventHeads } from "./next-events.js";
import { NODE_OBSERVER, type PipelineObserver, type PipelineStats } from "./pipeline-observer.js";
import { ProductSpecs } from "./product-specs.js";
import { RecentUplinks, type EventRow } from "./recent-uplinks.js";
import { FormulaCache } from "./rules/formula-metrics.js";
import { writeDecoded } from "./write-decoded.js";

/** Most uplinks decoded and written in one transaction. */
const BATCH_MAX = 2000;
/** Longest wait from a wake-up to the next batch, ms: uplinks arriving meanwhile join it. */
const BATCH_DELAY_MS = 100;
/**
 * Longest time, ms, the stored cursor may stay behind the pipeline while its batches derive nothing (uplinks of
 * products without streams). A batch that writes values commits its cursor with them; one that writes nothing only
 * moves the cursor in memory, saved with the next values, after this long, or on close: committing it every batch
 * was a synchronous=FULL commit, an fsync on the event loop, ten times a second under ingest. After a crash the
 * pipeline reads those uplinks again, and they derive nothing again (unless a stream was added for them meanwhile).
 */
const CURSOR_SAVE_MS = 1_000;
/** Wait before trying a failed batch again, ms. */
const RETRY_DELAY_MS = 1_000;

/**
 * The data pipeline (DESIGN §1): the product's report streams that match a stored uplink's topic decode it into data
 * point values; values are stored as a series, the latest per point is kept, location points move the device,
 * formula metrics are computed and data point rules open, repeat and close alerts. It reads the stored uplinks
 * (device events) in id order behind ingest, so an uplink's acknowledgement never waits for it, and commits the id
 * it reached in the same transaction as the values: after a crash it goes on where it stopped, and a value is
 * stored once (an uplink replayed by its adapter is stored once as an event, and its values once per point).
 * One node reads: events commit in id order from the one uplink writer.
 */
export class DataPipeline {
  readonly stats: PipelineStats = { uplinks: 0, values: 0, refused: 0 };
  private timer: NodeJS.Timeout | undefined;
  private active: Promise<boolean> | undefined;
  private again = false;
  private closed = false;
  private readonly specs: ProductSpecs;
  private readonly formulas = new FormulaCache();
  /** The id of the last event gone through; read at start. */
  private cursor: number | undefined;
  /** The cursor as last committed to the settings table, and when (epoch ms). */
  private saved: { cursor: number; at: number } | undefined;
  private readonly cursorSaveMs: number;

  private readonly durability: BatchDurability;
  private readonly observer: PipelineObserver;
  /** Most uplinks written in one transaction (a batch is written in several when it has more). */
  private readonly chunkUplinks: number;
  /** What this node's uplink writer stored lately (see `offer`). */
  private readonly recent = new RecentUplinks(2 * BATCH_MAX);

  /**
   * @param opts.cursorSaveMs see CURSOR_SAVE_MS (tests shorten or lengthen it).
   * @param opts.durability how a batch's transaction becomes durable: the store's, so that on SQLite its fsync runs
   *   on the thread pool, not on the event loop, as the uplink writer's does.
   * @param opts.observer where metrics and feed wake-ups go (NODE_OBSERVER).
   * @param opts.chunkUplinks most uplinks per transaction (default: a whole batch). A pipeline on a thread of its own
   *   writes in short transactions, since the uplink writer waits for SQLite's write lock as long as one lasts.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly logger: Logger,
    opts: {
      cursorSaveMs?: number;
      durability?: BatchDurability;
      observer?: PipelineObserver;
      chunkUplinks?: number;
    } = {},
  ) {
    this.specs = new ProductSpecs();
    this.cursorSaveMs = opts.cursorSaveMs ?? CURSOR_SAVE_MS;
    this.durability = opts.durability ?? commitIsDurable;
    this.observer = opts.observer ?? NODE_OBSERVER;
    this.chunkUplinks = Math.max(1, opts.chunkUplinks ?? BATCH_MAX);
  }

  /**
   * Uplinks just stored (an UplinkWriter's StoredListener): a batch takes them from here instead of reading them back
   * when they are all of its range.
   */
  readonly offer = (records: readonly UplinkRecord[], ids: ReadonlyMap<string, number>): void =>
    this.recent.add(records, ids);

  /** Reads (or sets up) the cursor, then catches up with what was stored while it was not running. */
  async start(): Promise<void> {
    await this.loadCursor();
    this.wake(0);
  }

  /** New uplinks were stored: a batch runs within BATCH_DELAY_MS. Never throws. */
  wake(delayMs = BATCH_DELAY_MS): void {
    if (this.closed) return;
    if (this.active) {
      this.again = true;
      return;
    }
    this.timer ??= setTimeout(() => this.run(), delayMs);
  }

  /** Resolves when every uplink stored so far went through (or a batch failed; it is retried later). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    // A batch under way may have read before the latest uplinks were stored: let it end, then read again.
    if (this.active) await this.active;
    while (!this.closed) {
      const more = await this.runOnce();
      if (!more) return;
    }
  }

  /** Stops: no batch starts after the running one; the cursor is saved where the pipeline got to. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.active;
    const { cursor, saved } = this;
    if (cursor === undefined || saved === undefined || saved.cursor === cursor) return;
    try {
      // Only over the value this pipeline saved: another node that took the pipeline over may have moved it since.
      await this.db
        .updateTable("settings")
        .set({ value: String(cursor) })
        .where("key", "=", PIPELINE_CURSOR_KEY)
        .where("value", "=", String(saved.cursor))
        .execute();
      this.saved = { cursor, at: Date.now() };
    } catch (err) {
      this.logger.warn({ err }, "data pipeline cursor not saved on close; the uplinks since are read again");
    }
  }

  private async loadCursor(): Promise<number> {
    const cursor = await this.db.transaction().execute(readCursor);
    this.cursor = cursor;
    this.saved = { cursor, at: Date.now() };
    return cursor;
  }

  private run(): void {
    this.timer = undefined;
    void this.runOnce().then((more) => {
      if (more || this.again) this.wake(more ? 0 : BATCH_DELAY_MS);
    });
  }

  /** One batch; resolves true when more events are waiting. */
  private runOnce(): Promise<boolean> {
    if (this.active) return this.active;
    this.again = false;
    this.active = this.batch()
      .catch((err: unknown) => {
        this.observer.failed();
        this.logger.error({ err }, "data pipeline batch failed; retrying");
        this.timer ??= setTimeout(() => this.run(), RETRY_DELAY_MS);
        return false;
      })
      .finally(() => (this.active = undefined));
    return this.active;
  }

  /**
   * Reads and decodes the next events outside any transaction (ingest goes on meanwhile), then writes what they
   * yield and the new cursor in one.
   */
  private async batch(): Promise<boolean> {
    const cursor = this.cursor ?? (await this.loadCursor());
    this.observer.reading();
    // Which events, and whose: the rows themselves (payload included) are read only for devices whose product has
    // streams. Reading every uplink in full behind ingest, streams or not, cost the central node a tenth of its CPU.
    const heads = await nextEvents(this.db, cursor, BATCH_MAX);
    if (heads === undefined) {
      this.observer.batch(0, 0, 0);
      return false;
    }
    const devices = await this.streamedDevices(heads.deviceIntIds);
    const events = await this.eventsOf(cursor, heads, devices);
    let values = 0;
    for (let start = 0; start < events.length || start === 0; start += this.chunkUplinks) {
      const chunk = events.slice(start, start + this.chunkUplinks);
      // A chunk's cursor is its last event; the last chunk's is the batch's, past uplinks without streams too.
      const last = start + this.chunkUplinks >= events.length ? heads.lastId : chunk.at(-1)!.id;
      values += await this.writeChunk(chunk, devices, last);
    }
    this.observer.batch(events.length, values, Math.max(0, Date.now() - heads.newestMsgTime) / 1000);
    return heads.count === BATCH_MAX;
  }

  /** Decodes events and stores what they yield with the cursor at `last`; answers how many values. */
  private async writeChunk(
    events: readonly EventRow[],
    devices: Map<number, StreamedDevice>,
    last: number,
  ): Promise<number> {
    const decoded = decodeEvents(events, devices, this.stats, this.logger);
    if (decoded.values.length > 0 || Date.now() - (this.saved?.at ?? 0) >= this.cursorSaveMs) {
      await this.durability.transaction(this.db, async (tx) => {
        if (decoded.values.length > 0) await writeDecoded(tx, decoded, this.formulas, this.stats);
        await tx
          .updateTable("settings")
          .set({ value: String(last) })
          .where("key", "=", PIPELINE_CURSOR_KEY)
          .execute();
      });
      // Durable before its events are announced and the next batch reads: what webhooks deliver survives a crash.
      await this.durability.sync();
      this.saved = { cursor: last, at: Date.now() };
    }
    this.cursor = last;
    if (decoded.values.length > 0) this.observer.committed();
    return decoded.values.length;
  }

  /**
   * The events after `cursor` up to the heads' last of `devices`, in id order: from what the writer handed over when
   * that holds the whole range, else read with their payloads.
   */
  private async eventsOf(
    cursor: number,
    heads: EventHeads,
    devices: ReadonlyMap<number, StreamedDevice>,
  ): Promise<EventRow[]> {
    const held = this.recent.take(cursor, heads.lastId, heads.count);
    if (devices.size === 0) return [];
    if (held !== undefined) return held.filter((e) => devices.has(e.deviceIntId));
    const rows = await this.db
      .selectFrom("deviceEvents")
      .select(["id", "msgKey", "tenantId", "deviceIntId", "gatewayIntId", "topic", "payload", "msgTime"])
      .where("id", ">", cursor)
      .where("id", "<=", heads.lastId)
      .where("deviceIntId", "in", [...devices.keys()])
      .orderBy("id")
      .execute();
    return rows.map((e) => ({ ...e, id: Number(e.id), msgTime: Number(e.msgTime) }));
  }

  /** Of these devices, those (still there) whose product has streams, with that product's spec. */
  private async streamedDevices(deviceIds: readonly number[]): Promise<Map<number, StreamedDevice>> {
    const rows = await this.db
      .selectFrom("devices")
      .select(["id", "productIntId", "deviceType"])
      .where("id", "in", [...deviceIds])
      .execute();
    const streamed = new Map<number, StreamedDevice>();
    for (const d of rows) {
      const spec = await this.specs.of(this.db, d.productIntId);
      if (spec.streams.length > 0) streamed.set(d.id, { deviceType: d.deviceType, spec });
    }
    return streamed;
  }
}

/**
 * The id of the last event the pipeline went through. Missing on a database that never ran it: it starts at the
 * newest event then, so turning the pipeline on does not decode the whole history at once.
 */
async function readCursor(tx: Kysely<Database>): Promise<number> {
  const row = await tx.selectFrom("settings").select("value").where("key", "=", PIPELINE_CURSOR_KEY).executeTakeFirst();
  if (row) return Number(row.value);
  const newest = await tx
    .selectFrom("deviceEvents")
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirst();
  const start = Number(newest?.id ?? 0);
  await tx
    .insertInto("settings")
    .values({ key: PIPELINE_CURSOR_KEY, value: String(start) })
    .execute();
  return start;
}
