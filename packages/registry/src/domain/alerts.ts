import type { Kysely, Selectable } from "kysely";
import type { Database, HistoryAlertsTable } from "../store/schema.js";
import type { Caller } from "./caller.js";
import { paginate, type ListResult, type Page } from "./list.js";

/**
 * A fired alert with its device's names. `alertDetail` is JSON text of the
 * measured values. The names are null once the device is deleted: the
 * history outlives it.
 */
export type HistoryAlert = Selectable<HistoryAlertsTable> & { deviceId: string | null; deviceName: string | null };

/** Filters of the alert list: one device (by its integer or string id) and open (no endTime) or closed alerts. */
export interface HistoryAlertFilter {
  deviceIntId?: number | undefined;
  /** The device's deviceID; alerts of a deleted device are found by deviceIntId only. */
  deviceId?: string | undefined;
  status?: "open" | "closed" | undefined;
}

/** The historical alerts of the caller's tenant, newest first, optionally filtered. */
export function listHistoryAlerts(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: HistoryAlertFilter = {},
): Promise<ListResult<HistoryAlert>> {
  let q = db
    .selectFrom("historyAlerts as a")
    .leftJoin("devices as d", (j) => j.onRef("d.id", "=", "a.deviceIntId").onRef("d.tenantId", "=", "a.tenantId"))
    .selectAll("a")
    .select(["d.deviceId as deviceId", "d.deviceName as deviceName"])
    .where("a.tenantId", "=", caller.tenantId);
  if (filter.deviceIntId !== undefined) q = q.where("a.deviceIntId", "=", filter.deviceIntId);
  if (filter.deviceId) q = q.where("d.deviceId", "=", filter.deviceId);
  if (filter.status === "open") q = q.where("a.endTime", "is", null);
  if (filter.status === "closed") q = q.where("a.endTime", "is not", null);
  return paginate(q, page, "a.id");
}

/** Deletes historical alerts of the caller's tenant; foreign and unknown ids are ignored. */
export async function deleteHistoryAlerts(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom("historyAlerts").where("tenantId", "=", caller.tenantId).where("id", "in", ids).execute();
}
