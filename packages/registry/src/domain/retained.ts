import type { Kysely, Selectable } from "kysely";
import type { Database } from "../store/schema.js";
import type { RetainedDirection, RetainedMessagesTable } from "../store/schema-commands.js";
import { queryInGrouped } from "../store/query-in.js";
import { fail } from "../errors.js";
import type { Caller } from "./caller.js";
import { getDevice } from "./devices.js";
import { paginate, type ListResult, type Page } from "./list.js";
import { topicFilterProblem, topicMatches } from "./topic-filter.js";

/** A retained message as stored (see RetainedMessagesTable). */
export type RetainedMessage = Selectable<RetainedMessagesTable>;
export type { RetainedDirection };

/** The directions a retained message has. */
export const RETAINED_DIRECTIONS = ["command", "uplink"] as const;

/** What the adapter holds of a retained message to send at SUBSCRIBE (topic relative to the device's mountpoint). */
export interface PushedRetained {
  topic: string;
  payload: Uint8Array;
  qos: number;
  /** MQTT 5.0 PUBLISH properties (JSON object text), "" when none. */
  properties: string;
}

/** What sets or clears a retained message: an empty payload clears it (MQTT-3.3.1-10). */
export interface RetainedWrite {
  tenantId: string;
  deviceIntId: number;
  direction: RetainedDirection;
  topic: string;
  payload: Uint8Array;
  qos: number;
  properties?: string | null | undefined;
  controlLogIntId?: number | null | undefined;
}

/**
 * Keeps `write` as the retained message of its device, direction and topic, replacing the one there; an empty
 * payload deletes it instead (MQTT 3.1.1 §3.3.1.3 / MQTT-3.3.1-10 and -11: a zero-byte retained message clears the
 * topic's and is not kept). Runs inside the caller's transaction when `db` is one.
 */
export async function writeRetained(db: Kysely<Database>, write: RetainedWrite, now = Date.now()): Promise<void> {
  const key = { deviceIntId: write.deviceIntId, direction: write.direction, topic: write.topic };
  if (write.payload.length === 0) {
    await db
      .deleteFrom("retainedMessages")
      .where("deviceIntId", "=", key.deviceIntId)
      .where("direction", "=", key.direction)
      .where("topic", "=", key.topic)
      .execute();
    return;
  }
  const values = {
    payload: write.payload,
    qos: write.qos,
    properties: write.properties || null,
    controlLogIntId: write.controlLogIntId ?? null,
    updateAt: now,
  };
  await db
    .insertInto("retainedMessages")
    .values({ ...key, tenantId: write.tenantId, ...values })
    .onConflict((oc) => oc.columns(["deviceIntId", "direction", "topic"]).doUpdateSet(values))
    .execute();
}

/**
 * What a retained uplink keeps of its MQTT 5.0 properties (the uplink's metadata JSON): userProperties, contentType
 * and payloadFormatIndicator. A response topic and correlation data belong to one request, not to a value later
 * subscribers get. Undefined when none (or when the metadata is not an MQTT 5.0 properties object).
 */
export function retainedUplinkProperties(metadata: string | undefined): string | undefined {
  if (!metadata) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(metadata);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== "object") return undefined;
  const kept: Record<string, unknown> = {};
  for (const key of ["userProperties", "contentType", "payloadFormatIndicator"])
    if (key in parsed) kept[key] = (parsed as Record<string, unknown>)[key];
  return Object.keys(kept).length > 0 ? JSON.stringify(kept) : undefined;
}

/** What a list of retained messages may be narrowed to. */
export interface RetainedFilter {
  direction?: RetainedDirection | undefined;
  /** An MQTT topic filter the topics must match (relative to the device's mountpoint). */
  topic?: string | undefined;
}

/** The retained messages of a device of the caller's tenant, newest first; FORM_INVALID names a bad `topic` filter. */
export async function listRetained(
  db: Kysely<Database>,
  caller: Caller,
  deviceIntId: number,
  filter: RetainedFilter,
  page: Page,
): Promise<ListResult<RetainedMessage>> {
  const device = await getDevice(db, caller, deviceIntId);
  const problem = filter.topic === undefined ? undefined : topicFilterProblem(filter.topic);
  if (problem) throw fail.form({ topic: problem });
  let query = db
    .selectFrom("retainedMessages")
    .selectAll()
    .where("tenantId", "=", caller.tenantId)
    .where("deviceIntId", "=", device.id);
  if (filter.direction) query = query.where("direction", "=", filter.direction);
  if (filter.topic === undefined || !/[+#]/.test(filter.topic)) {
    if (filter.topic !== undefined) query = query.where("topic", "=", filter.topic);
    // Newest first (`_order` asc: oldest); the table has no id or createAt to sort by.
    return paginate(query, { ...page, sort: undefined }, "updateAt");
  }
  // A wildcard filter: a device holds a few retained messages, matched here rather than in SQL.
  const topicFilter = filter.topic;
  const all = await query.orderBy("updateAt", page.order === "asc" ? "asc" : "desc").execute();
  const items = all.filter((m) => topicMatches(topicFilter, m.topic));
  const offset = (page.page - 1) * page.limit;
  return { items: items.slice(offset, offset + page.limit), count: items.length, page: page.page, limit: page.limit };
}

/**
 * Clears the retained message of a device of the caller's tenant on `topic` (of one direction, or both); answers
 * the directions cleared. DATA_NOT_FOUND naming `topic` when there was none.
 */
export async function clearRetained(
  db: Kysely<Database>,
  caller: Caller,
  deviceIntId: number,
  topic: string,
  direction?: RetainedDirection,
): Promise<RetainedDirection[]> {
  const device = await getDevice(db, caller, deviceIntId);
  let query = db
    .deleteFrom("retainedMessages")
    .where("tenantId", "=", caller.tenantId)
    .where("deviceIntId", "=", device.id)
    .where("topic", "=", topic);
  if (direction) query = query.where("direction", "=", direction);
  const gone = await query.returning("direction").execute();
  if (gone.length === 0) throw fail.notFound("topic");
  return gone.map((r) => r.direction);
}

/**
 * What each device's adapter delivers at SUBSCRIBE: one retained message per topic, as MQTT keeps (MQTT-3.3.1-5),
 * the newer when the device both has a retained command and reported a retained uplink there. Not tenant-scoped.
 */
export async function retainedOfDevices(
  db: Kysely<Database>,
  deviceIntIds: Iterable<number>,
): Promise<Map<number, PushedRetained[]>> {
  const rows = await queryInGrouped(
    deviceIntIds,
    (ids) =>
      db
        .selectFrom("retainedMessages")
        .select(["deviceIntId", "topic", "payload", "qos", "properties", "updateAt"])
        .where("deviceIntId", "in", ids)
        .orderBy("updateAt")
        .execute(),
    (r) => r,
  );
  const pushed = new Map<number, PushedRetained[]>();
  for (const [id, list] of rows) {
    const byTopic = new Map<string, PushedRetained>();
    for (const r of list)
      byTopic.set(r.topic, { topic: r.topic, payload: r.payload, qos: r.qos, properties: r.properties ?? "" });
    pushed.set(id, [...byTopic.values()]);
  }
  return pushed;
}
