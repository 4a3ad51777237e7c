import { EventEmitter } from "node:events";
import { sql, type Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { StoredUplinkRef } from "../store/store-hooks.js";
import { EitherEngineInsert, engineOf } from "../store/multi-row-insert.js";
import { uplinkMetadata } from "../store/uplink-metadata.js";
import { queryIn } from "../store/query-in.js";

import type { EventType, FeedEvent, NewEvent } from "./event-types.js";

export { EVENT_TYPES, type EventType, type FeedEvent, type NewEvent } from "./event-types.js";

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
  await lockOutbox(tx);
  const values: unknown[] = [];
  for (const e of events) values.push(e.tenantId, e.deviceIntId, e.type, e.time, JSON.stringify(e.data), now);
  await OUTBOX_INSERT.run(tx, values);
}

/** PostgreSQL: the outbox lock, held to the end of `tx` (see appendEvents); SQLite has one writer anyway. */
async function lockOutbox(tx: Kysely<Database>): Promise<void> {
  if (engineOf(tx) === "postgres")
    await sql`select pg_advisory_xact_lock(${OUTBOX_LOCK.toString()}::bigint)`.execute(tx);
}

/**
 * Appends the `uplink` events of one batch's stored uplinks inside the batch's transaction: one outbox row per tenant
 * standing for as many events (`uplink_ids`, migration 0021), where a row per uplink cost the central node about a
 * sixth of its CPU per uplink (a row and its index entries). The ids of a row's events end at the row's own id and
 * are reserved like any id, in commit order: on SQLite the row is inserted with that id and AUTOINCREMENT never
 * hands out an id below it again; on PostgreSQL they are taken from the table's sequence under the outbox lock.
 * readEvents gives each uplink its own event.
 */
export async function appendUplinkEvents(
  tx: Kysely<Database>,
  uplinks: readonly StoredUplinkRef[],
  now = Date.now(),
): Promise<void> {
  if (uplinks.length === 0) return;
  const byTenant = new Map<string, number[]>();
  for (const u of uplinks) {
    const ids = byTenant.get(u.tenantId);
    if (ids === undefined) byTenant.set(u.tenantId, [u.uplinkId]);
    else ids.push(u.uplinkId);
  }
  await lockOutbox(tx);
  let id = (await reserveEventIds(tx, uplinks.length)) - uplinks.length;
  const values: unknown[] = [];
  for (const [tenantId, ids] of byTenant) {
    id += ids.length;
    values.push(id, tenantId, null, "uplink", now, "{}", now, JSON.stringify(ids));
  }
  await UPLINK_RANGE_INSERT.run(tx, values);
}

/** Reserves the next `count` event ids inside `tx` (holding the outbox lock on PostgreSQL); answers the last. */
async function reserveEventIds(tx: Kysely<Database>, count: number): Promise<number> {
  if (engineOf(tx) === "postgres") {
    const r = await sql<{ last: string | number }>`select setval(pg_get_serial_sequence('northbound_events', 'id'),
      nextval(pg_get_serial_sequence('northbound_events', 'id')) + ${count - 1}) as last`.execute(tx);
    return Number(r.rows[0]!.last);
  }
  const r = await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'northbound_events'`.execute(tx);
  return Number(r.rows[0]?.seq ?? 0) + count;
}

/** The columns of an event's row with their PostgreSQL types, in the order appendEvents gives their values. */
const EVENT_COLUMNS = {
  tenant_id: "text",
  device_int_id: "bigint",
  type: "text",
  event_time: "bigint",
  data: "text",
  create_at: "bigint",
};

/** The outbox INSERT (its SQL text made once per row count and engine). */
const OUTBOX_INSERT = new EitherEngineInsert("northbound_events", EVENT_COLUMNS);

/** The INSERT of uplink range rows: their ids first, their uplinks last. */
const UPLINK_RANGE_INSERT = new EitherEngineInsert("northbound_events", {
  id: "bigint",
  ...EVENT_COLUMNS,
  uplink_ids: "text",
});

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
  /**
   * Read no event above this id (a page taken up to the newest id seen before reading). It must be an id
   * `newestEventId` answered (a row's): a range row ending above it is left out, and a consumer that moved its cursor
   * to an id inside that row would skip the row's events up to it.
   */
  upToId?: number | undefined;
  limit: number;
  tenantId?: string | undefined;
  types?: readonly string[] | undefined;
  productIds?: readonly string[] | undefined;
  deviceIds?: readonly string[] | undefined;
}

/** Events in id order, with the device's deviceID and its product's productID (null once the device is deleted). */
export async function readEvents(db: Kysely<Database>, q: EventQuery): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  // An uplink range row stands for many events, and filters on the product or device drop some of them: the outbox
  // is read page by page until `limit` events are found or it ends.
  for (let after = q.afterId; ;) {
    const rows = await outboxRows(db, q, after);
    // The uplinks of range rows are read a few rows at a time, about as many as the page still lacks.
    for (let at = 0; at < rows.length;) {
      const next: Array<{ row: OutboxRow; ids?: number[] }> = [];
      const wanted: number[] = [];
      for (let lacking = q.limit - events.length; at < rows.length && lacking > 0; at++) {
        const row = rows[at]!;
        const ids = row.uplinkIds === null ? undefined : (JSON.parse(row.uplinkIds) as number[]);
        next.push({ row, ids });
        if (ids === undefined) lacking--;
        else
          for (const [k, id] of ids.entries())
            if (eventIdOf(row, ids, k) > q.afterId) {
              wanted.push(id);
              lacking--;
            }
      }
      const uplinks = wanted.length > 0 ? await uplinksOf(db, wanted, q) : new Map<number, FeedUplink>();
      for (const { row, ids } of next) {
        if (ids === undefined) events.push(rowEvent(row));
        else pushUplinks(events, q, row, ids, uplinks);
        if (events.length >= q.limit) return events.slice(0, q.limit);
      }
    }
    if (rows.length < q.limit) return events;
    after = Number(rows.at(-1)!.id);
  }
}

/** The event id of the k-th uplink of a range row: the row's id is the last of its events'. */
const eventIdOf = (row: OutboxRow, ids: readonly number[], k: number): number => Number(row.id) - ids.length + 1 + k;

/**
 * One page of outbox rows after `after`, as `q` filters them. An uplink range row passes the product and device
 * filters (it has no device): its events are filtered one by one (pushUplinks).
 */
function outboxRows(db: Kysely<Database>, q: EventQuery, after: number) {
  let query = db
    .selectFrom("northboundEvents as e")
    .leftJoin("devices as d", "d.id", "e.deviceIntId")
    .leftJoin("products as p", "p.id", "d.productIntId")
    .leftJoin("deviceEvents as u", "u.id", "e.uplinkId")
    .select(["e.id", "e.tenantId", "e.type", "e.eventTime", "e.data", "e.uplinkIds", "d.deviceId", "p.productId"])
    .select(["u.id as uplinkRow", "u.topic", "u.qos", "u.payload", "u.gatewayIntId", "u.metadata"])
    .where("e.id", ">", after);
  if (q.upToId !== undefined) query = query.where("e.id", "<=", q.upToId);
  if (q.tenantId !== undefined) query = query.where("e.tenantId", "=", q.tenantId);
  const types = filterOf(q.types);
  if (types) query = query.where("e.type", "in", types);
  const productIds = filterOf(q.productIds);
  if (productIds)
    query = query.where((eb) => eb.or([eb("e.uplinkIds", "is not", null), eb("p.productId", "in", productIds)]));
  const deviceIds = filterOf(q.deviceIds);
  if (deviceIds)
    query = query.where((eb) => eb.or([eb("e.uplinkIds", "is not", null), eb("d.deviceId", "in", deviceIds)]));
  return query.orderBy("e.id").limit(q.limit).execute();
}

/** A filter's values as a list for the query, or undefined when it filters nothing (absent or empty). */
const filterOf = (values: readonly string[] | undefined): string[] | undefined =>
  values && values.length > 0 ? [...values] : undefined;

type OutboxRow = Awaited<ReturnType<typeof outboxRows>>[number];

/** The event of a row that is one event. */
function rowEvent(r: OutboxRow): FeedEvent {
  return {
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
  };
}

/** A stored uplink as its event reports it, with its device's ids. */
interface FeedUplink extends StoredUplink {
  msgTime: number;
  deviceId: string | null;
  productId: string | null;
}

/**
 * The uplinks of `ids` that pass `q`'s product and device filters, by id, with their device's deviceID and productID
 * (null once the device is deleted). A webhook for a few devices of a busy tenant reads only their uplinks: through
 * the (device, tenant, id) index over the ids' span, instead of every uplink of the span by id.
 */
async function uplinksOf(
  db: Kysely<Database>,
  ids: readonly number[],
  q: EventQuery,
): Promise<Map<number, FeedUplink>> {
  const select = () =>
    db
      .selectFrom("deviceEvents as u")
      .leftJoin("devices as d", "d.id", "u.deviceIntId")
      .leftJoin("products as p", "p.id", "d.productIntId")
      .select(["u.id", "u.msgTime", "u.topic", "u.qos", "u.payload", "u.gatewayIntId", "u.metadata"])
      .select(["d.deviceId", "p.productId"]);
  const productIds = filterOf(q.productIds);
  const deviceIds = filterOf(q.deviceIds);
  let rows;
  if (deviceIds && q.tenantId !== undefined) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const id of ids) {
      if (id < lo) lo = id;
      if (id > hi) hi = id;
    }
    const wanted = new Set(ids);
    let query = select()
      .where("u.tenantId", "=", q.tenantId)
      .where("u.deviceIntId", "in", (eb) =>
        eb.selectFrom("devices").select("id").where("tenantId", "=", q.tenantId!).where("deviceId", "in", deviceIds),
      )
      .where("u.id", ">=", lo)
      .where("u.id", "<=", hi);
    if (productIds) query = query.where("p.productId", "in", productIds);
    rows = (await query.execute()).filter((r) => wanted.has(Number(r.id)));
  } else {
    rows = await queryIn(ids, (chunk) => {
      let query = select().where("u.id", "in", chunk);
      if (productIds) query = query.where("p.productId", "in", productIds);
      if (deviceIds) query = query.where("d.deviceId", "in", deviceIds);
      return query.execute();
    });
  }
  const byId = new Map<number, FeedUplink>();
  for (const r of rows)
    byId.set(Number(r.id), {
      msgTime: Number(r.msgTime),
      topic: r.topic,
      qos: Number(r.qos),
      payload: r.payload,
      gatewayIntId: r.gatewayIntId ?? null,
      metadata: r.metadata ?? null,
      deviceId: r.deviceId ?? null,
      productId: r.productId ?? null,
    });
  return byId;
}

/**
 * Appends the events of an uplink range row that `q` asks for (`uplinks`: those uplinksOf found). An uplink whose row
 * retention deleted comes with empty `data`, no device and the row's time (and passes no product or device filter).
 */
function pushUplinks(
  events: FeedEvent[],
  q: EventQuery,
  r: OutboxRow,
  ids: readonly number[],
  uplinks: ReadonlyMap<number, FeedUplink>,
): void {
  const filtered = filterOf(q.productIds) !== undefined || filterOf(q.deviceIds) !== undefined;
  for (const [k, uplinkId] of ids.entries()) {
    const id = eventIdOf(r, ids, k);
    if (id <= q.afterId) continue;
    const u = uplinks.get(uplinkId);
    // Filtered, `uplinks` holds only the uplinks that pass (a deleted one passes no filter).
    if (u === undefined && filtered) continue;
    events.push({
      id,
      type: "uplink",
      tenantID: r.tenantId,
      productID: u?.productId ?? null,
      deviceID: u?.deviceId ?? null,
      time: u?.msgTime ?? Number(r.eventTime),
      data: u ? uplinkData(u) : {},
    });
  }
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
