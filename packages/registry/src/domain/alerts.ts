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

/** The historical alerts of the caller's tenant, newest first. */
export function listHistoryAlerts(db: Kysely<Database>, caller: Caller, page: Page): Promise<ListResult<HistoryAlert>> {
  const q = db
    .selectFrom("historyAlerts as a")
    .leftJoin("devices as d", (j) => j.onRef("d.id", "=", "a.deviceIntId").onRef("d.tenantId", "=", "a.tenantId"))
    .selectAll("a")
    .select(["d.deviceId as deviceId", "d.deviceName as deviceName"])
    .where("a.tenantId", "=", caller.tenantId);
  return paginate(q, page, "a.id");
}

/** Deletes historical alerts of the caller's tenant; foreign and unknown ids are ignored. */
export async function deleteHistoryAlerts(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom("historyAlerts").where("tenantId", "=", caller.tenantId).where("id", "in", ids).execute();
}
