import { describe, expect, it } from "vitest";
import { checkValue } from "./check-value.js";
import { decoded, pointRule } from "./fixtures.js";
import { planAlerts } from "./plan-alerts.js";
import type { CheckedValue, OpenAlert, PointRule } from "./types.js";

const DEVICE = 7;
const AT = 1_700_000_000_000;
const temp = pointRule({ id: 1, dataPointId: "temp", dataPointName: "Temperature", upperLimit: 30, lowerLimit: 0 });
const mode = pointRule({ id: 2, dataPointId: "mode", dataPointName: "Mode", enum: "[0,1]" });

/** A value of `point` with the breaches checkValue finds. */
function checked(point: PointRule, number: number | null, text: string | null = null): CheckedValue {
  const value = decoded(point, number, text);
  return { point, value, breaches: checkValue(point, value) };
}
const stored = (id: number, dataPointIntId: number, rule: OpenAlert["rule"], deviceIntId = DEVICE): OpenAlert => ({
  id,
  deviceIntId,
  dataPointIntId,
  rule,
});

describe("planAlerts", () => {
  it("opens an alert for a breach with no open alert", () => {
    expect(planAlerts([], DEVICE, [checked(temp, 35)], AT)).toEqual({
      open: [
        {
          deviceIntId: DEVICE,
          dataPointIntId: 1,
          rule: "upperLimit",
          alertName: "Temperature above upper limit",
          alertContent: "Temperature is 35, above the upper limit of 30.",
          alertDetail: { dataPointID: "temp", rule: "upperLimit", measured: 35, limit: 30 },
          alertSeverity: 2,
          alertTimes: 1,
          startTime: AT,
          endTime: null,
        },
      ],
      repeat: [],
      close: [],
    });
  });

  it("repeats the open alert of a breach that continues", () => {
    expect(planAlerts([stored(10, 1, "upperLimit")], DEVICE, [checked(temp, 40)], AT)).toEqual({
      open: [],
      repeat: [{ alertId: 10, count: 1 }],
      close: [],
    });
  });

  it("closes the open alert when a value is back within the rule, a limit itself included", () => {
    expect(planAlerts([stored(10, 1, "upperLimit")], DEVICE, [checked(temp, 30)], AT)).toEqual({
      open: [],
      repeat: [],
      close: [{ alertId: 10, endTime: AT }],
    });
  });

  it("closes an open alert whose rule was removed from the point", () => {
    const unlimited = { ...temp, upperLimit: null };
    const plan = planAlerts([stored(10, 1, "upperLimit")], DEVICE, [checked(unlimited, 99)], AT);
    expect(plan.close).toEqual([{ alertId: 10, endTime: AT }]);
  });

  it("changes nothing for a point that got no value in the message", () => {
    const open = [stored(10, 1, "upperLimit"), stored(11, 2, "enum")];
    expect(planAlerts(open, DEVICE, [checked(mode, 5)], AT)).toEqual({
      open: [],
      repeat: [{ alertId: 11, count: 1 }],
      close: [],
    });
    expect(planAlerts(open, DEVICE, [], AT)).toEqual({ open: [], repeat: [], close: [] });
  });

  it("changes nothing for an empty value", () => {
    expect(planAlerts([stored(10, 1, "upperLimit")], DEVICE, [checked(temp, null)], AT)).toEqual({
      open: [],
      repeat: [],
      close: [],
    });
  });

  it("ignores other devices' open alerts", () => {
    const plan = planAlerts([stored(10, 1, "upperLimit", 8)], DEVICE, [checked(temp, 35), checked(temp, 20)], AT);
    expect(plan.repeat).toEqual([]);
    expect(plan.close).toEqual([]);
    expect(plan.open).toHaveLength(1);
  });

  it("keeps one alert per rule of a point: a value crossing from above to below closes one and opens the other", () => {
    const plan = planAlerts([stored(10, 1, "upperLimit")], DEVICE, [checked(temp, -5)], AT);
    expect(plan.close).toEqual([{ alertId: 10, endTime: AT }]);
    expect(plan.open.map((a) => [a.rule, a.alertSeverity])).toEqual([["lowerLimit", 2]]);
  });

  it("opens one alert per broken rule when a value breaks several rules of one point", () => {
    const both = pointRule({ id: 3, dataPointId: "lvl", dataPointName: "Level", upperLimit: 2, enum: "[0,1,2]" });
    const plan = planAlerts([], DEVICE, [checked(both, 3)], AT);
    expect(plan.open.map((a) => [a.dataPointIntId, a.rule, a.alertSeverity])).toEqual([
      [3, "upperLimit", 2],
      [3, "enum", 3],
    ]);
  });

  it("repeats one rule and closes another of the same point in one message", () => {
    const both = pointRule({ id: 3, dataPointId: "lvl", dataPointName: "Level", upperLimit: 2, enum: "[0,1,2,5]" });
    const plan = planAlerts([stored(20, 3, "upperLimit"), stored(21, 3, "enum")], DEVICE, [checked(both, 5)], AT);
    expect(plan).toEqual({ open: [], repeat: [{ alertId: 20, count: 1 }], close: [{ alertId: 21, endTime: AT }] });
  });

  it("handles several points of one message independently", () => {
    const plan = planAlerts([stored(10, 1, "upperLimit")], DEVICE, [checked(temp, 10), checked(mode, 4)], AT);
    expect(plan.close).toEqual([{ alertId: 10, endTime: AT }]);
    expect(plan.open.map((a) => [a.dataPointIntId, a.rule])).toEqual([[2, "enum"]]);
    expect(plan.open[0]!.alertDetail).toEqual({ dataPointID: "mode", rule: "enum", measured: 4, limit: ["0", "1"] });
  });

  it("counts repeated breaches of one message once per value", () => {
    expect(
      planAlerts([stored(10, 1, "upperLimit")], DEVICE, [checked(temp, 31), checked(temp, 32)], AT).repeat,
    ).toEqual([{ alertId: 10, count: 2 }]);
    const fresh = planAlerts([], DEVICE, [checked(temp, 31), checked(temp, 32)], AT);
    expect(fresh.open.map((a) => [a.alertTimes, a.endTime])).toEqual([[2, null]]);
  });

  it("inserts closed an alert that the same message opens and brings back within its rule", () => {
    const plan = planAlerts([], DEVICE, [checked(temp, 31), checked(temp, 20)], AT);
    expect(plan.open.map((a) => [a.rule, a.alertTimes, a.startTime, a.endTime])).toEqual([["upperLimit", 1, AT, AT]]);
    expect(plan.close).toEqual([]);
  });

  it("opens a new alert for a breach after the same message closed the stored one", () => {
    const plan = planAlerts([stored(10, 1, "upperLimit")], DEVICE, [checked(temp, 20), checked(temp, 50)], AT);
    expect(plan.close).toEqual([{ alertId: 10, endTime: AT }]);
    expect(plan.open.map((a) => [a.rule, a.endTime])).toEqual([["upperLimit", null]]);
  });

  it("keeps the oldest of duplicate open alerts and closes the others when the point gets a value", () => {
    const open = [stored(12, 1, "upperLimit"), stored(10, 1, "upperLimit"), stored(11, 1, "upperLimit")];
    expect(planAlerts(open, DEVICE, [checked(temp, 40)], AT)).toEqual({
      open: [],
      repeat: [{ alertId: 10, count: 1 }],
      close: [
        { alertId: 11, endTime: AT },
        { alertId: 12, endTime: AT },
      ],
    });
    expect(planAlerts(open, DEVICE, [checked(mode, 1)], AT).close).toEqual([]);
  });

  it("opens a fault alert as urgent with the fault value as limit", () => {
    const pump = pointRule({ id: 4, dataPointId: "err", dataPointName: "Pump", pointDataType: 4, faultValue: "E1" });
    const [alert] = planAlerts([], DEVICE, [checked(pump, null, "E1")], AT).open;
    expect(alert).toMatchObject({
      rule: "fault",
      alertSeverity: 1,
      alertName: "Pump reports a fault",
      alertDetail: { dataPointID: "err", rule: "fault", measured: "E1", limit: "E1" },
    });
  });
});
