import type { Kysely, Selectable } from "kysely";
import type { ConnectLogsTable, ControlLogsTable, Database, DeviceEventsTable } from "../store/schema.js";
import type { Caller } from "./caller.js";
import { ilike, paginate, paginateIds, type ListResult, type Page } from "./list.js";
import { getGroup } from "./groups.js";
import { deviceSearchConditions } from "./device-search.js";
import { tenantUplinkCount } from "../store/uplink-counts.js";

/** An uplink message with its device's names. */
export type DeviceEvent = Selectable<DeviceEventsTable> & { deviceId: string; deviceName: string; productName: string };
/** A connect log row (deviceID/deviceName as recorded at the time). */
export type ConnectLog = Selectable<ConnectLogsTable>;
/** A downlink command with its device's name. */
export type ControlLog = Selectable<ControlLogsTable> & { deviceName: string; deviceId: string };

/** Uplink messages of the caller's tenant, newest first; optionally one device's. */
export async function listDeviceEvents(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: {
    deviceIntId?: number;
    gatewayIntId?: number;
    deviceNameLike?: string | undefined;
    deviceIdLike?: string | undefined;
    topicLike?: string | undefined;
  } = {},
): Promise<ListResult<DeviceEvent>> {
  // The join keeps out uplinks of deleted devices, as the records need their device; the product is always there.
  let q = db
    .selectFrom("deviceEvents as e")
    .innerJoin("devices as d", "d.id", "e.deviceIntId")
    .where("e.tenantId", "=", caller.tenantId);
  if (filter.deviceIntId !== undefined) q = q.where("e.deviceIntId", "=", filter.deviceIntId);
  // A gateway's messages: its own, and those it relayed for its devices.
  const g = filter.gatewayIntId;
  if (g !== undefined) q = q.where((eb) => eb.or([eb("e.deviceIntId", "=", g), eb("e.gatewayIntId", "=", g)]));
  for (const c of await deviceSearchConditions(db, filter, "e.deviceIntId")) q = q.where(c);
  if (filter.topicLike) q = q.where(ilike("e.topic", filter.topicLike));
  // The whole tenant's uplinks: counted by the store as they are written (counting them here joined every uplink).
  // Any filter given, including one added later, counts the rows instead.
  const whole = Object.values(filter).every((v) => v === undefined || v === "");
  const count = whole ? () => tenantUplinkCount(db, caller.tenantId) : undefined;
  return paginateIds(
    q,
    page,
    "e.id",
    ["msgTime"],
    (ids) =>
      db
        .selectFrom("deviceEvents as e")
        .innerJoin("devices as d", "d.id", "e.deviceIntId")
        .innerJoin("products as p", "p.id", "d.productIntId")
        .selectAll("e")
        .select(["d.deviceId as deviceId", "d.deviceName as deviceName", "p.productName as productName"])
        .where("e.id", "in", ids)
        .execute(),
    count,
  );
}

/** Connect logs of the caller's tenant, newest first; optionally one device's. */
export function listConnectLogs(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: {
    deviceIntId?: number;
    deviceNameLike?: string | undefined;
    deviceIdLike?: string | undefined;
    ipLike?: string | undefined;
  } = {},
): Promise<ListResult<ConnectLog>> {
  let q = db.selectFrom("connectLogs as c").selectAll("c").where("c.tenantId", "=", caller.tenantId);
  if (filter.deviceIntId !== undefined) q = q.where("c.deviceIntId", "=", filter.deviceIntId);
  if (filter.deviceNameLike) q = q.where(ilike("c.deviceName", filter.deviceNameLike));
  if (filter.deviceIdLike) q = q.where(ilike("c.deviceId", filter.deviceIdLike));
  if (filter.ipLike) q = q.where(ilike("c.ip", filter.ipLike));
  return paginate(q, page, "c.id");
}

/** Downlink commands of the caller's tenant, newest first; optionally one device's. */
export async function listControlLogs(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: { deviceIntId?: number; deviceNameLike?: string | undefined; deviceIdLike?: string | undefined } = {},
): Promise<ListResult<ControlLog>> {
  let q = db
    .selectFrom("controlLogs as l")
    .innerJoin("devices as d", "d.id", "l.deviceIntId")
    .selectAll("l")
    .select(["d.deviceName as deviceName", "d.deviceId as deviceId"])
    .where("l.tenantId", "=", caller.tenantId);
  if (filter.deviceIntId !== undefined) q = q.where("l.deviceIntId", "=", filter.deviceIntId);
  for (const c of await deviceSearchConditions(db, filter, "l.deviceIntId")) q = q.where(c);
  return paginate(q, page, "l.id");
}

/** Fetches one control log of the caller's tenant (for device_publish's answer). */
export async function getControlLog(db: Kysely<Database>, caller: Caller, id: number): Promise<ControlLog | undefined> {
  return db
    .selectFrom("controlLogs as l")
    .innerJoin("devices as d", "d.id", "l.deviceIntId")
    .selectAll("l")
    .select(["d.deviceName as deviceName", "d.deviceId as deviceId"])
    .where("l.tenantId", "=", caller.tenantId)
    .where("l.id", "=", id)
    .executeTakeFirst();
}

/** A command sent to a group, with the group's string id and name. */
export type GroupControlLog = Selectable<ControlLogsTable> & { groupId: string; groupName: string };

/** Commands sent to one group of the caller's tenant, newest first; DATA_NOT_FOUND for a foreign or unknown group. */
export async function listGroupControlLogs(
  db: Kysely<Database>,
  caller: Caller,
  groupIntId: number,
  page: Page,
): Promise<ListResult<GroupControlLog>> {
  const group = await getGroup(db, caller, groupIntId);
  const q = db
    .selectFrom("controlLogs as l")
    .innerJoin("groups as g", "g.id", "l.groupIntId")
    .selectAll("l")
    .select(["g.groupId as groupId", "g.groupName as groupName"])
    .where("l.tenantId", "=", caller.tenantId)
    .where("l.groupIntId", "=", group.id);
  return paginate(q, page, "l.id");
}
