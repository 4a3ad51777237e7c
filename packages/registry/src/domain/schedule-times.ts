import { Cron } from "croner";

/** scheduleType codes: 0 once at `crontabTime`, 1 every `intervalMinute` minutes, 2 by a cron expression (UTC). */
export const SCHEDULE_TYPE = { once: 0, interval: 1, cron: 2 } as const;

/** A minute, ms: the granularity of every schedule. */
export const MINUTE_MS = 60_000;

/** How late a scheduleType 0 run may be and still fire (after a restart), ms: one minute. */
export const ONCE_GRACE_MS = 1 * MINUTE_MS;

/** Longest interval, minutes (one year). */
export const MAX_INTERVAL_MINUTES = 525_600;

/** When a schedule runs; `intervalMinute`, `crontabTime` (epoch ms) or `cronExpression` per its type. */
export interface ScheduleTiming {
  scheduleType: number;
  intervalMinute: number | null;
  crontabTime: number | null;
  cronExpression: string | null;
}

/** A cron job used only to compute times (never started). Five fields, minute granularity, evaluated in UTC. */
const cronOf = (expression: string) => new Cron(expression, { timezone: "Etc/UTC", mode: "5-part", paused: true });

/** Why a cron expression cannot be a schedule (not five valid fields, or never due), else undefined. */
export function cronProblem(expression: string): string | undefined {
  try {
    const next = cronOf(expression).nextRun(new Date());
    return next ? undefined : "is never due";
  } catch (err) {
    return `is not a cron expression of five fields: ${(err as Error).message.replace(/^CronPattern: /, "")}`;
  }
}

/** The first cron time strictly after `after` (epoch ms), or null when there is none. */
function cronAfter(expression: string, after: number): number | null {
  return cronOf(expression).nextRun(new Date(after))?.getTime() ?? null;
}

/** The first run of a schedule created at `now`, epoch ms (null: never, e.g. a cron with no future time). */
export function firstRunAt(t: ScheduleTiming, now: number): number | null {
  if (t.scheduleType === SCHEDULE_TYPE.once) return t.crontabTime;
  if (t.scheduleType === SCHEDULE_TYPE.interval) return now + t.intervalMinute! * MINUTE_MS;
  return cronAfter(t.cronExpression!, now);
}

/**
 * How late the run due at `due` may start and still fire, ms: one interval (type 1), the gap to the cron's next
 * time (type 2), ONCE_GRACE_MS (type 0).
 */
function lateLimitMs(t: ScheduleTiming, due: number): number {
  if (t.scheduleType === SCHEDULE_TYPE.once) return ONCE_GRACE_MS;
  if (t.scheduleType === SCHEDULE_TYPE.interval) return t.intervalMinute! * MINUTE_MS;
  const next = cronAfter(t.cronExpression!, due);
  return next === null ? ONCE_GRACE_MS : next - due;
}

/** What to do with a run due at `due`, seen at `now`: fire it or skip it (too late), and when the next run is. */
export interface RunPlan {
  fire: boolean;
  /** How late the run is, ms (0 or more). */
  lateMs: number;
  /** The next due time after `now` (null: the schedule has ended). */
  next: number | null;
}

/**
 * Plans a due run. It fires when it is less than `lateLimitMs` late (a run missed while the service was down fires
 * once at start if so), else it is skipped. Either way at most one run fires now: the next due time is the first
 * one after `now` (interval runs stay on their grid of creation time + k intervals). scheduleType 0 then ends.
 */
export function planRun(t: ScheduleTiming, due: number, now: number): RunPlan {
  const lateMs = Math.max(0, now - due);
  const fire = lateMs < lateLimitMs(t, due);
  let next: number | null = null;
  if (t.scheduleType === SCHEDULE_TYPE.interval) {
    const step = t.intervalMinute! * MINUTE_MS;
    next = due + (Math.floor(lateMs / step) + 1) * step;
  } else if (t.scheduleType === SCHEDULE_TYPE.cron) {
    next = cronAfter(t.cronExpression!, Math.max(now, due));
  }
  return { fire, lateMs, next };
}
