import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { planAlerts } from "./rules/plan-alerts.js";
import type { CheckedValue, OpenAlert } from "./rules/types.js";

/**
 * Applies one uplink's checked values to the device's history alerts: a breach opens an alert (one per device,
 * point and rule), a repeat while it is open counts it, a value back within the rule closes it.
 */
export async function applyAlerts(
  tx: Kysely<Database>,
  tenantId: string,
  deviceIntId: number,
  checked: readonly CheckedValue[],
  at: number,
): Promise<void> {
  const open = (
    await tx
      .selectFrom("historyAlerts")
      .select(["id", "deviceIntId", "dataPointIntId", "rule"])
      .where("deviceIntId", "=", deviceIntId)
      .where("endTime", "is", null)
      .where("dataPointIntId", "is not", null)
      .execute()
  ).map((a) => ({ ...a, dataPointIntId: a.dataPointIntId!, rule: a.rule as OpenAlert["rule"] }));
  const plan = planAlerts(open, deviceIntId, checked, at);
  if (plan.open.length > 0)
    await tx
      .insertInto("historyAlerts")
      .values(
        plan.open.map((a) => ({
          tenantId,
          deviceIntId,
          dataPointIntId: a.dataPointIntId,
          rule: a.rule,
          alertName: a.alertName,
          alertContent: a.alertContent,
          alertDetail: JSON.stringify(a.alertDetail),
          alertSeverity: a.alertSeverity,
          alertTimes: a.alertTimes,
          startTime: a.startTime,
          endTime: a.endTime,
          createAt: at,
          updateAt: null,
        })),
      )
      .execute();
  for (const r of plan.repeat)
    await tx
      .updateTable("historyAlerts")
      .set((eb) => ({ alertTimes: eb("alertTimes", "+", r.count), updateAt: at }))
      .where("id", "=", r.alertId)
      .execute();
  for (const c of plan.close)
    await tx
      .updateTable("historyAlerts")
      .set({ endTime: c.endTime, updateAt: at })
      .where("id", "=", c.alertId)
      .execute();
}
