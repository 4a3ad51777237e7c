import { describe, expect, it } from "vitest";
import { cronProblem, firstRunAt, MINUTE_MS, ONCE_GRACE_MS, planRun, SCHEDULE_TYPE } from "./schedule-times.js";

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const every = (minutes: number) => ({
  scheduleType: SCHEDULE_TYPE.interval,
  intervalMinute: minutes,
  crontabTime: null,
  cronExpression: null,
});
const cron = (cronExpression: string) => ({
  scheduleType: SCHEDULE_TYPE.cron,
  intervalMinute: null,
  crontabTime: null,
  cronExpression,
});
const once = (at: number) => ({
  scheduleType: SCHEDULE_TYPE.once,
  intervalMinute: null,
  crontabTime: at,
  cronExpression: null,
});

describe("schedule times", () => {
  it("runs an interval schedule one interval after creation, a cron one at its next UTC time, a once one at its time", () => {
    expect(firstRunAt(every(5), T0)).toBe(T0 + 5 * MINUTE_MS);
    expect(firstRunAt(cron("30 12 * * *"), T0)).toBe(Date.UTC(2030, 0, 1, 12, 30));
    expect(firstRunAt(once(T0 + 1234), T0)).toBe(T0 + 1234);
  });

  it("fires a run on time and keeps the interval grid for the next one", () => {
    expect(planRun(every(5), T0, T0 + 300)).toEqual({ fire: true, lateMs: 300, next: T0 + 5 * MINUTE_MS });
  });

  it("fires a run less than one interval late once, and skips one that is an interval late or more", () => {
    expect(planRun(every(10), T0, T0 + 9 * MINUTE_MS)).toEqual({
      fire: true,
      lateMs: 9 * MINUTE_MS,
      next: T0 + 10 * MINUTE_MS,
    });
    // 35 minutes late: three runs were missed; none fires, the next one is on the grid after now.
    expect(planRun(every(10), T0, T0 + 35 * MINUTE_MS)).toEqual({
      fire: false,
      lateMs: 35 * MINUTE_MS,
      next: T0 + 40 * MINUTE_MS,
    });
  });

  it("allows a cron run as late as the gap to its next time", () => {
    const hourly = cron("0 * * * *");
    expect(planRun(hourly, T0, T0 + 59 * MINUTE_MS).fire).toBe(true);
    const late = planRun(hourly, T0, T0 + 61 * MINUTE_MS);
    expect(late).toEqual({ fire: false, lateMs: 61 * MINUTE_MS, next: T0 + 2 * 60 * MINUTE_MS });
  });

  it("fires a once schedule up to a minute late, then ends it either way", () => {
    expect(planRun(once(T0), T0, T0 + ONCE_GRACE_MS - 1)).toEqual({
      fire: true,
      lateMs: ONCE_GRACE_MS - 1,
      next: null,
    });
    expect(planRun(once(T0), T0, T0 + ONCE_GRACE_MS)).toEqual({ fire: false, lateMs: ONCE_GRACE_MS, next: null });
  });

  it("accepts five cron fields and names what is wrong with anything else", () => {
    expect(cronProblem("*/5 * * * *")).toBeUndefined();
    expect(cronProblem("0 0 9 * * 1")).toMatch(/five fields/);
    expect(cronProblem("61 * * * *")).toMatch(/five fields/);
    expect(cronProblem("hello")).toMatch(/five fields/);
  });
});
