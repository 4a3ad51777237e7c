import type { Kysely, Selectable } from "kysely";
import type { Database, ProxySubscriptionsTable } from "../store/schema.js";
import { reusableInQuery, reusableQuery } from "../store/reusable-query.js";
import { queryInGrouped } from "../store/query-in.js";
import { fail, isUniqueViolation } from "../errors.js";
import type { Caller } from "./caller.js";
import { getDevice } from "./devices.js";
import { paginate, type ListResult, type Page } from "./list.js";
import { topicFilterProblem } from "./topic-filter.js";

/** A topic the adapter subscribes a device to on its behalf, relative to the device's namespace. */
export type ProxySubscription = Selectable<ProxySubscriptionsTable>;

/** What a caller sends: an MQTT topic filter and a QoS of 0 or 1 (default 1). */
export interface SubscriptionInput {
  topic: string;
  qos?: number | undefined;
}

/** QoS levels a proxy subscription may ask for. */
export const SUBSCRIPTION_QOS = [0, 1] as const;

/**
 * Adds a proxy subscription to a device of the caller's tenant. FORM_INVALID
 * names a bad topic or qos; the same topic twice on one device is
 * DATA_EXISTED naming `topic`.
 */
export async function addSubscription(
  db: Kysely<Database>,
  caller: Caller,
  deviceIntId: number,
  input: SubscriptionInput,
  now = Date.now(),
): Promise<ProxySubscription> {
  const device = await getDevice(db, caller, deviceIntId);
  const qos = input.qos ?? 1;
  const errors: Record<string, string> = {};
  const problem = topicFilterProblem(input.topic);
  if (problem) errors.topic = problem;
  if (!(SUBSCRIPTION_QOS as readonly number[]).includes(qos)) errors.qos = "must be 0 or 1";
  if (Object.keys(errors).length > 0) throw fail.form(errors);
  try {
    return await db
      .insertInto("proxySubscriptions")
      .values({
        tenantId: caller.tenantId,
        deviceIntId: device.id,
        topic: input.topic,
        qos,
        createAt: now,
        updateAt: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    if (isUniqueViolation(err)) throw fail.exists("topic", "the device already has this subscription");
    throw err;
  }
}

/** The proxy subscriptions of a device of the caller's tenant, newest first. */
export async function listSubscriptions(
  db: Kysely<Database>,
  caller: Caller,
  deviceIntId: number,
  page: Page,
): Promise<ListResult<ProxySubscription>> {
  const device = await getDevice(db, caller, deviceIntId);
  return paginate(
    db
      .selectFrom("proxySubscriptions")
      .selectAll()
      .where("tenantId", "=", caller.tenantId)
      .where("deviceIntId", "=", device.id),
    page,
    "id",
  );
}

/** Removes proxy subscriptions (by their ids) of a device of the caller's tenant; other ids are ignored. */
export async function removeSubscriptions(
  db: Kysely<Database>,
  caller: Caller,
  deviceIntId: number,
  ids: number[],
): Promise<void> {
  const device = await getDevice(db, caller, deviceIntId);
  if (ids.length === 0) return;
  await db
    .deleteFrom("proxySubscriptions")
    .where("tenantId", "=", caller.tenantId)
    .where("deviceIntId", "=", device.id)
    .where("id", "in", ids)
    .execute();
}

/** Every proxy subscription of one device, oldest first, for the adapter to subscribe on connect. Not tenant-scoped. */
export async function subscriptionsOfDevice(
  db: Kysely<Database>,
  deviceIntId: number,
): Promise<Array<{ id: number; topic: string; qos: number }>> {
  return subscriptionRowsOfDevice(db, deviceIntId);
}

/** The proxy subscriptions of each of several devices (AuthenticateBatch), oldest first as subscriptionsOfDevice. */
export async function subscriptionsOfDevices(
  db: Kysely<Database>,
  deviceIntIds: Iterable<number>,
): Promise<Map<number, Array<{ id: number; topic: string; qos: number }>>> {
  return queryInGrouped(
    deviceIntIds,
    (ids) => subscriptionRowsOfDevices(db, ids),
    (r) => ({ id: r.id, topic: r.topic, qos: r.qos }),
  );
}

/** Read at every AuthenticateBatch, so compiled once per IN list length (see reusableInQuery). */
const subscriptionRowsOfDevices = reusableInQuery((db: Kysely<Database>, ids: number[]) =>
  db
    .selectFrom("proxySubscriptions")
    .select(["deviceIntId", "id", "topic", "qos"])
    .where("deviceIntId", "in", ids)
    .orderBy("id"),
);

/** Read at every device connect, so compiled once (see reusableQuery). */
const subscriptionRowsOfDevice = reusableQuery((db: Kysely<Database>, deviceIntId: number) =>
  db
    .selectFrom("proxySubscriptions")
    .select(["id", "topic", "qos"])
    .where("deviceIntId", "=", deviceIntId)
    .orderBy("id"),
);
