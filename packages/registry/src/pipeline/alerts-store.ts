import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { planAlerts } from "./rules/plan-alerts.js";
import type { CheckedValue, OpenAlert } from "./rules/types.js";
import type { NewEvent } from "../northbound/events.js";

/**
 * The open history alerts of a batch's devices, read once per batch and kept current as the batch's uplinks are
 * applied in order: a breach opens an alert (one per device, point and rule), a repeat while it is open counts it,
 * a value back within the rule closes it. An uplink with no breach on a device with no open alert costs nothing.
 */
export class OpenAlerts {
  private constructor(private readonly open: Map<number, OpenAlert[]>) {}

  /** Reads the open alerts of these devices. */
  static async load(tx: Kysely<Database>, deviceIntIds: readonly number[]): Promise<OpenAlerts> {
    const open = new Map<number, OpenAlert[]>();
    for (let i = 0; i < deviceIntIds.length; i += 500) {
      const rows = await tx
        .selectFrom("historyAlerts")
        .select(["id", "deviceIntId", "dataPointIntId", "rule"])
        .where("deviceIntId", "in", deviceIntIds.slice(i, i + 500))
        .where("endTime", "is", null)
        .where("dataPointIntId", "is not", null)
        .orderBy("id")
        .execute();
      for (const a of rows) {
        const alert = { ...a, dataPointIntId: a.dataPointIntId!, rule: a.rule as OpenAlert["rule"] };
        open.set(a.deviceIntId, [...(open.get(a.deviceIntId) ?? []), alert]);
      }
    }
    return new OpenAlerts(open);
  }

  /** Applies one uplink's checked values of a device; answers the feed's alert_opened/alert_closed events. */
  async apply(
    tx: Kysely<Database>,
    tenantId: string,
    deviceIntId: number,
    checked: readonly CheckedValue[],
    at: number,
  ): Promise<NewEvent[]> {
    const events: NewEvent[] = [];
    const open = this.open.get(deviceIntId) ?? [];
    if (open.length === 0 && checked.every((c) => c.breaches.length === 0)) return events;
    const plan = planAlerts(open, deviceIntId, checked, at);
    const closed = new Set(plan.close.map((c) => c.alertId));
    const stillOpen = open.filter((a) => !closed.has(a.id));
    for (const a of plan.open) {
      const { id } = await tx
        .insertInto("historyAlerts")
        .values({
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
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      const fields = { alertId: id, alertName: a.alertName, alertSeverity: a.alertSeverity, rule: a.rule };
      events.push({ tenantId, deviceIntId, type: "alert_opened", time: a.startTime, data: fields });
      if (a.endTime !== null)
        events.push({ tenantId, deviceIntId, type: "alert_closed", time: a.endTime, data: { alertId: id } });
      if (a.endTime === null) stillOpen.push({ id, deviceIntId, dataPointIntId: a.dataPointIntId, rule: a.rule });
    }
    for (const r of plan.repeat)
      await tx
        .updateTable("historyAlerts")
        .set((eb) => ({ alertTimes: eb("alertTimes", "+", r.count), updateAt: at }))
        .where("id", "=", r.alertId)
        .execute();
    for (const c of plan.close) {
      await tx
        .updateTable("historyAlerts")
        .set({ endTime: c.endTime, updateAt: at })
        .where("id", "=", c.alertId)
        .execute();
      events.push({ tenantId, deviceIntId, type: "alert_closed", time: c.endTime, data: { alertId: c.alertId } });
    }
    this.open.set(deviceIntId, stillOpen);
    return events;
  }
}
