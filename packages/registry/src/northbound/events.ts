import { EventEmitter } from "node:events";
import { sql, type Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { EitherEngineInsert, engineOf } from "../store/multi-row-insert.js";
import { uplinkMetadata } from "../store/uplink-metadata.js";

/** Every event type of the northbound feed, as named on the wire (webhooks, stream, NATS subjects). */
export const EVENT_TYPES = [
  "uplink",
  "decoded",
  "online",
  "offline",
  "command_result",
  "alert_opened",
  "alert_closed",
] as const;

/** One of EVENT_TYPES. */
export type EventType = (typeof EVENT_TYPES)[number];

/** An event to append: what happened to which device of which tenant, and when (epoch ms). */
export interface NewEvent {
  tenantId: string;
  deviceIntId: number | null;
  type: EventType;
  time: number;
  /** The event's own fields; stored as JSON. */
  data: Record<string, unknown>;
  /**
   * An uplink event's `device_events` row: its topic, QoS, payload and metadata are read from there (`uplinkData`)
   * instead of being copied into the outbox, and `data` is then `{}`.
   */
  uplinkId?: number | undefined;
}

/** An event as consumers get it: ids resolved, `id` increasing with commit order. */
export interface FeedEvent {
  id: number;
  type: EventType;
  tenantID: string;
  productID: string | null;
  deviceID: string | null;
  /** Epoch ms when it happened. */
  time: number;
  data: Record<string, unknown>;
}

/** Any PostgreSQL advisory lock key only the outbox uses ("nbevents" in ASCII, fits a bigint). */
const OUTBOX_LOCK = 0x6e626576656e7473n;

/**
 * Wakes consumers (webhooks, stream, NATS) when events may have been committed. A spurious wake costs one query;
 * consumers also poll, so a missed wake only delays. Process-wide on purpose: every writer in the process signals
 * it without being handed anything.
 */
export const feedSignal = new EventEmitter().setMaxListeners(0);

/** Tells consumers that events were committed (call after the transaction that appended them). */
export function eventsCommitted(): void {
  feedSignal.emit("committed");
}

/**
 * Appends events to the outbox inside the caller's transaction `tx`, so an event exists exactly when the write it
 * reports committed. On PostgreSQL the transaction first takes an advisory lock held until it ends: ids are taken
 * and committed in one order, so a reader that saw id N never later finds a smaller id appear (SQLite has one
 * writer at a time anyway).
 */
export async function appendEvents(tx: Kysely<Database>, events: readonly NewEvent[], now = Date.now()): Promise<void> {
  if (events.length === 0) return;
  if (engineOf(tx) === "postgres")
    await sql`select pg_advisory_xact_lock(${OUTBOX_LOCK.toString()}::bigint)`.execute(tx);
  const values: unknown[] = [];
  for (const e of events)
    values.push(e.tenantId, e.deviceIntId, e.type, e.time, JSON.stringify(e.data), now, e.uplinkId ?? null);
  await OUTBOX_INSERT.run(tx, values);
}

/** The outbox INSERT (every uplink appends its event: the SQL text is made once per row count and engine). */
const OUTBOX_INSERT = new EitherEngineInsert("northbound_events", [
  "tenant_id",
  "device_int_id",
  "type",
  "event_time",
  "data",
  "create_at",
  "uplink_id",
]);

/** A stored uplink's columns its event reports. */
interface StoredUplink {
  topic: string;
  qos: number;
  payload: Uint8Array;
  gatewayIntId: number | null;
  metadata: string | null;
}

/**
 * The fields of an uplink's event: its topic, QoS, payload (base64), whether it came through a gateway, and how it
 * arrived (`metadata`, e.g. a LoRaWAN uplink's gateways) when its adapter told. Made when the feed is read, from the
 * uplink's row: at 50,000 uplinks/s, copying them into the outbox (base64 and JSON) was 8 % of the central node.
 */
function uplinkData(u: StoredUplink): Record<string, unknown> {
  return {
    topic: u.topic,
    qos: u.qos,
    payload: Buffer.from(u.payload.buffer, u.payload.byteOffset, u.payload.byteLength).toString("base64"),
    ...(u.gatewayIntId !== null ? { viaGateway: true } : {}),
    ...(u.metadata ? { metadata: uplinkMetadata(u.metadata) } : {}),
  };
}

/** Which events to read: after `afterId`, at most `limit`, optionally of one tenant and matching filters. */
export interface EventQuery {
  afterId: number;
  /** Read no event above this id (a page taken up to the newest id seen before reading). */
  upToId?: number | undefined;
  limit: number;
  tenantId?: string | undefined;
  types?: readonly string[] | undefined;
  productIds?: readonly string[] | undefined;
  deviceIds?: readonly string[] | undefined;
}

/** Events in id order, with the device's deviceID and its product's productID (null once the device is deleted). */
export async function readEvents(db: Kysely<Database>, q: EventQuery): Promise<FeedEvent[]> {
  let query = db
    .selectFrom("northboundEvents as e")
    .leftJoin("devices as d", "d.id", "e.deviceIntId")
    .leftJoin("products as p", "p.id", "d.productIntId")
    .leftJoin("deviceEvents as u", "u.id", "e.uplinkId")
    .select(["e.id", "e.tenantId", "e.type", "e.eventTime", "e.data", "d.deviceId", "p.productId"])
    .select(["u.id as uplinkRow", "u.topic", "u.qos", "u.payload", "u.gatewayIntId", "u.metadata"])
    .where("e.id", ">", q.afterId);
  if (q.upToId !== undefined) query = query.where("e.id", "<=", q.upToId);
  if (q.tenantId !== undefined) query = query.where("e.tenantId", "=", q.tenantId);
  if (q.types && q.types.length > 0) query = query.where("e.type", "in", [...q.types]);
  if (q.productIds && q.productIds.length > 0) query = query.where("p.productId", "in", [...q.productIds]);
  if (q.deviceIds && q.deviceIds.length > 0) query = query.where("d.deviceId", "in", [...q.deviceIds]);
  const rows = await query.orderBy("e.id").limit(q.limit).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    type: r.type as EventType,
    tenantID: r.tenantId,
    productID: r.productId ?? null,
    deviceID: r.deviceId ?? null,
    time: Number(r.eventTime),
    // An uplink whose row retention deleted before its event was read keeps what the outbox holds.
    data:
      r.uplinkRow !== null && r.uplinkRow !== undefined
        ? uplinkData({
            topic: r.topic!,
            qos: Number(r.qos),
            payload: r.payload!,
            gatewayIntId: r.gatewayIntId ?? null,
            metadata: r.metadata ?? null,
          })
        : (JSON.parse(r.data) as Record<string, unknown>),
  }));
}

/** The newest event id (0 when the outbox is empty). */
export async function newestEventId(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom("northboundEvents")
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}

/**
 * Deletes outbox rows created before `before` (epoch ms), the oldest first and at most `limit` at a time; answers how
 * many went. Reads the oldest rows by id and stops at the first one created at or after `before`: rows are appended
 * as they are created, so ids and creation times rise together (migration 0020 dropped the index on the time). A node
 * whose clock ran ahead holds pruning back only until its rows are old enough. Webhooks or a NATS publisher still
 * behind the rows deleted skip them (documented in docs/northbound.md).
 */
export async function pruneEvents(db: Kysely<Database>, before: number, limit = 5_000): Promise<number> {
  const oldest = await db
    .selectFrom("northboundEvents")
    .select(["id", "createAt"])
    .orderBy("id")
    .limit(limit)
    .execute();
  let last: number | undefined;
  for (const row of oldest) {
    if (Number(row.createAt) >= before) break;
    last = Number(row.id);
  }
  if (last === undefined) return 0;
  const r = await db.deleteFrom("northboundEvents").where("id", "<=", last).executeTakeFirst();
  return Number(r.numDeletedRows);
}
