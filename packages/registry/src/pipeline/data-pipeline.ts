import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { pipelineFailures, pipelineLag, pipelineUplinks, pipelineValues } from "../ops/registry-metrics.js";
import { commitIsDurable, type BatchDurability } from "../store/batch-durability.js";
import type { Database } from "../store/schema.js";
import type { UplinkRecord } from "../store/store.js";
import { RecentUplinks, type EventRow } from "./recent-uplinks.js";
import { decodeUplink } from "./decode/decode-uplink.js";
import { ProductSpecs, type PipelinePoint, type ProductSpec } from "./product-specs.js";
import { checkValue, isFaultValue } from "./rules/check-value.js";
import { discards } from "./rules/discards.js";
import { computeFormulaMetrics, FormulaCache } from "./rules/formula-metrics.js";
import { OpenAlerts } from "./alerts-store.js";
import { appendEvents, eventsCommitted, type NewEvent } from "../northbound/events.js";
import {
  storeMetricValues,
  storePointValues,
  updateLatestValues,
  type MetricValueRow,
  type PointValueRow,
} from "./series-store.js";

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
/** pointDataType of a geolocation point. */
const GEOLOCATION = 6;
/** Settings key of the id of the last device event the pipeline went through (retention keeps the events above). */
export const PIPELINE_CURSOR_KEY = "pipeline.cursor";

/**
 * Where the pipeline reports what it did: the node's metrics and the northbound wake-up by default; a pipeline on a
 * worker thread hands them to the main thread instead (pipeline-thread.ts).
 */
export interface PipelineObserver {
  /** A batch is about to read the next events: every uplink committed before this call is in what it reads. */
  reading(): void;
  /** A batch went through `uplinks` uplinks and stored `values` values; the newest is `lagSeconds` old. */
  batch(uplinks: number, values: number, lagSeconds: number): void;
  /** A batch failed (it is retried). */
  failed(): void;
  /** Feed events (decoded values, alerts) were committed. */
  committed(): void;
}

/** The node's own metrics and feed signal. */
export const NODE_OBSERVER: PipelineObserver = {
  reading() {},
  batch(uplinks, values, lagSeconds) {
    pipelineUplinks().inc(uplinks);
    pipelineValues().inc(values);
    pipelineLag().set(lagSeconds);
  },
  failed: () => pipelineFailures().inc(),
  committed: eventsCommitted,
};

/** What the pipeline did, for logs and tests. */
export interface PipelineStats {
  uplinks: number;
  values: number;
  refused: number;
}

/** What a batch of events yields: its values, with the point and the formulas of each. */
interface DecodedBatch {
  values: PointValueRow[];
  /** The point of each value, at the same index. */
  points: PipelinePoint[];
  /** eventId → the formulas its values feed. */
  formulasOf: Map<number, ProductSpec["formulas"]>;
}

/** A device whose uplinks the pipeline decodes: its type (a gateway's own uplinks differ) and its product's spec. */
interface StreamedDevice {
  deviceType: number;
  spec: ProductSpec;
}

/** The next events after a cursor, summed up: see `nextEvents`. */
interface EventHeads {
  deviceIntIds: number[];
  lastId: number;
  count: number;
  /** The newest `msgTime` among them (the pipeline's lag is measured to it). */
  newestMsgTime: number;
}

/**
 * The next `limit` events after `cursor` in id order (or fewer), summed up by the database: their devices, the last id,
 * how many, the newest receipt time; undefined when there are none. Read as rows, one object per uplink made and then
 * mapped by kysely, the window cost 3–9 ms of the event loop per 2,000 uplinks, about ten times a second behind MQTT
 * ingest at 25,000 uplinks/s (docs/performance.md, "The data pipeline"); grouped, it is one row per device.
 */
export async function nextEvents(db: Kysely<Database>, cursor: number, limit: number): Promise<EventHeads | undefined> {
  const window = db
    .selectFrom("deviceEvents")
    .select(["id", "deviceIntId", "msgTime"])
    .where("id", ">", cursor)
    .orderBy("id")
    .limit(limit)
    .as("w");
  const rows = await db
    .selectFrom(window)
    .select((eb) => [
      "w.deviceIntId",
      eb.fn.max("w.id").as("lastId"),
      eb.fn.countAll().as("count"),
      eb.fn.max("w.msgTime").as("newestMsgTime"),
    ])
    .groupBy("w.deviceIntId")
    .execute();
  if (rows.length === 0) return undefined;
  // kysely types aggregates as string | number | bigint: made numbers whatever the engine answers.
  return {
    deviceIntIds: rows.map((r) => r.deviceIntId),
    lastId: Math.max(...rows.map((r) => Number(r.lastId))),
    count: rows.reduce((sum, r) => sum + Number(r.count), 0),
    newestMsgTime: Math.max(...rows.map((r) => Number(r.newestMsgTime))),
  };
}

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
    const decoded = await this.decode(events, devices);
    if (decoded.values.length > 0 || Date.now() - (this.saved?.at ?? 0) >= this.cursorSaveMs) {
      await this.durability.transaction(this.db, async (tx) => {
        if (decoded.values.length > 0) await this.write(tx, decoded);
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

  /** The values of a batch of events of `devices`, with the point and formulas of each, ready to write. */
  private async decode(batch: readonly EventRow[], devices: Map<number, StreamedDevice>): Promise<DecodedBatch> {
    const values: PointValueRow[] = [];
    const points: PipelinePoint[] = [];
    const formulasOf = new Map<number, ProductSpec["formulas"]>();
    for (const u of batch) {
      const device = devices.get(u.deviceIntId);
      if (!device) continue;
      const spec = device.spec;
      this.stats.uplinks++;
      const fromGateway = device.deviceType === 2 && u.gatewayIntId === null;
      const decoded = decodeUplink(spec.streams, u.topic, fromGateway, u.payload);
      for (const f of decoded.failures) {
        this.stats.refused++;
        this.logger.info({ deviceIntId: u.deviceIntId, topic: u.topic, reason: f.error }, "uplink not decoded");
      }
      for (const r of decoded.refused) {
        this.stats.refused++;
        this.logger.info({ deviceIntId: u.deviceIntId, dataPointId: r.dataPointId, reason: r.reason }, "value refused");
      }
      // A fault point with isDiscard that got its fault value drops the message's values but its own: the fault
      // is stored and alerted once, however often the uplink is replayed.
      const discard = discards(spec.points, decoded.values);
      formulasOf.set(u.id, discard ? [] : spec.formulas);
      for (const v of decoded.values) {
        const point = spec.points.get(v.dataPointIntId);
        if (!point || (discard && !isFaultValue(point, v))) continue;
        points.push(point);
        values.push({
          tenantId: u.tenantId,
          deviceIntId: u.deviceIntId,
          dataPointIntId: v.dataPointIntId,
          eventId: u.id,
          valueTime: decoded.deviceTime ?? u.msgTime,
          receivedAt: u.msgTime,
          numValue: v.number,
          textValue: v.text,
        });
      }
    }
    return { values, points, formulasOf };
  }

  /** Stores the values not stored before, and what follows from them: latest values, position, metrics, alerts. */
  private async write(tx: Kysely<Database>, { values, points, formulasOf }: DecodedBatch): Promise<void> {
    await storePointValues(tx, values);
    this.stats.values += values.length;
    await updateLatestValues(tx, values);
    const alerts = await OpenAlerts.load(tx, [...new Set(values.map((r) => r.deviceIntId))]);
    await moveDevices(tx, values, points);
    const metrics: MetricValueRow[] = [];
    const events: NewEvent[] = [];
    // decode() lists each uplink's values together: one run of rows per uplink.
    for (let start = 0, end = 0; start < values.length; start = end) {
      const first = values[start]!;
      while (end < values.length && values[end]!.eventId === first.eventId) end++;
      const decodedValues = [];
      const checked = [];
      for (let i = start; i < end; i++) {
        const r = values[i]!;
        const point = points[i]!;
        const value = {
          dataPointIntId: r.dataPointIntId,
          dataPointId: point.dataPointId,
          number: r.numValue,
          text: r.textValue,
        };
        decodedValues.push(value);
        checked.push({ point, value, breaches: checkValue(point, value) });
      }
      for (const m of computeFormulaMetrics(formulasOf.get(first.eventId) ?? [], decodedValues, this.formulas))
        metrics.push({
          tenantId: first.tenantId,
          deviceIntId: first.deviceIntId,
          metricIntId: m.metricIntId,
          eventId: first.eventId,
          valueTime: first.valueTime,
          value: m.value,
        });
      events.push({
        tenantId: first.tenantId,
        deviceIntId: first.deviceIntId,
        type: "decoded",
        time: first.valueTime,
        data: {
          receivedAt: first.receivedAt,
          values: decodedValues.map((v) => ({ dataPointID: v.dataPointId, value: v.number ?? v.text })),
        },
      });
      events.push(...(await alerts.apply(tx, first.tenantId, first.deviceIntId, checked, first.valueTime)));
    }
    await storeMetricValues(tx, metrics);
    // The feed's decoded and alert events, in the transaction of the values they report.
    await appendEvents(tx, events);
  }
}

/**
 * Location points set the device's position: a geolocation point (type 6, stored as "lon,lat") both coordinates,
 * a numeric point with isLocationType 1 the one its locationType names (1 longitude, 2 latitude). `points[i]` is
 * the point of `values[i]`.
 */
async function moveDevices(
  tx: Kysely<Database>,
  values: readonly PointValueRow[],
  points: readonly PipelinePoint[],
): Promise<void> {
  for (let i = 0; i < values.length; i++) {
    const position = positionOf(points[i]!, values[i]!);
    if (position) await tx.updateTable("devices").set(position).where("id", "=", values[i]!.deviceIntId).execute();
  }
}

/** The coordinates a stored value gives its device, if its point is a location point. */
function positionOf(point: PipelinePoint, r: PointValueRow): { longitude?: number; latitude?: number } | undefined {
  if (point.pointDataType === GEOLOCATION && r.textValue !== null) {
    const [longitude, latitude] = r.textValue.split(",").map(Number);
    return { longitude, latitude };
  }
  if (r.numValue === null) return undefined;
  if (point.locationType === 1) return { longitude: r.numValue };
  if (point.locationType === 2) return { latitude: r.numValue };
  return undefined;
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
