import { alertText } from "./alert-text.js";
import type { AlertPlan, Breach, BreachRule, CheckedValue, NewAlert, OpenAlert } from "./types.js";

/** The state of one (point, rule) of the device while a message is planned. */
type State = { kind: "stored"; alertId: number } | { kind: "new"; alert: NewAlert };

const keyOf = (dataPointIntId: number, rule: BreachRule) => `${dataPointIntId}:${rule}`;

function newAlert(deviceIntId: number, c: CheckedValue, b: Breach, at: number): NewAlert {
  return {
    deviceIntId,
    dataPointIntId: c.point.id,
    rule: b.rule,
    ...alertText(c.point, b),
    alertDetail: { dataPointID: c.point.dataPointId, rule: b.rule, measured: b.measured, limit: b.limit },
    alertSeverity: b.severity,
    alertTimes: 1,
    startTime: at,
    endTime: null,
  };
}

/**
 * What the checked values of one message of device `deviceIntId`, received
 * at `at` (epoch ms), do to its alerts; there is at most one open alert per
 * (device, point, rule). Values are taken in order:
 *
 * - a breach with no open alert opens one (alertTimes 1, startTime `at`);
 * - a breach while one is open repeats it (alertTimes + count);
 * - a value of the point within that rule closes it (endTime `at`), also
 *   when the rule has since been removed from the point;
 * - a point with no value in this message (or only an empty value) changes
 *   nothing.
 *
 * `open` may hold other devices' alerts (ignored). Should it hold several
 * open alerts of one (device, point, rule), the oldest (lowest id) stays and
 * the others are closed when the point next gets a value. An alert opened
 * and brought back within its rule by the same message is inserted closed.
 */
export function planAlerts(
  open: readonly OpenAlert[],
  deviceIntId: number,
  checked: readonly CheckedValue[],
  at: number,
): AlertPlan {
  const mine = open.filter((a) => a.deviceIntId === deviceIntId).sort((a, b) => a.id - b.id);
  const state = new Map<string, State>();
  const duplicates = new Map<number, number[]>();
  for (const a of mine) {
    const key = keyOf(a.dataPointIntId, a.rule);
    if (!state.has(key)) state.set(key, { kind: "stored", alertId: a.id });
    else duplicates.set(a.dataPointIntId, [...(duplicates.get(a.dataPointIntId) ?? []), a.id]);
  }
  const plan: AlertPlan = { open: [], repeat: [], close: [] };
  const repeats = new Map<number, { alertId: number; count: number }>();

  for (const c of checked) {
    if (c.value.number === null && c.value.text === null) continue;
    const pointId = c.point.id;
    for (const alertId of duplicates.get(pointId) ?? []) plan.close.push({ alertId, endTime: at });
    duplicates.delete(pointId);
    const breached = new Map(c.breaches.map((b) => [b.rule, b]));
    for (const rule of ["upperLimit", "lowerLimit", "fault", "enum"] as const) {
      const key = keyOf(pointId, rule);
      const s = state.get(key);
      const b = breached.get(rule);
      if (b !== undefined) {
        if (s === undefined) {
          const alert = newAlert(deviceIntId, c, b, at);
          plan.open.push(alert);
          state.set(key, { kind: "new", alert });
        } else if (s.kind === "new") {
          s.alert.alertTimes++;
        } else {
          const r = repeats.get(s.alertId) ?? { alertId: s.alertId, count: 0 };
          if (r.count++ === 0) {
            repeats.set(s.alertId, r);
            plan.repeat.push(r);
          }
        }
      } else if (s !== undefined) {
        if (s.kind === "new") s.alert.endTime = at;
        else plan.close.push({ alertId: s.alertId, endTime: at });
        state.delete(key);
      }
    }
  }
  return plan;
}
