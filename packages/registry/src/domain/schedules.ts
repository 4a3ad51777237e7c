import type { Kysely, Selectable } from "kysely";
import type { Database, SchedulesTable } from "../store/schema.js";
import { fail } from "../errors.js";
import type { Caller } from "./caller.js";
import { paginate, type ListResult, type Page } from "./list.js";
import { cronProblem, firstRunAt, MAX_INTERVAL_MINUTES, SCHEDULE_TYPE } from "./schedule-times.js";

/** A schedule with the names of what it targets and the outcome of its last run. */
export type Schedule = Selectable<SchedulesTable> & {
  deviceId: string | null;
  deviceName: string | null;
  groupId: string | null;
  groupName: string | null;
  /** publishStatus of the last run's device command (it changes as the device answers). */
  lastPublishStatus: number | null;
  /** taskID and status of the last run's group command task. */
  lastTaskId: string | null;
  lastTaskStatus: number | null;
};

/** What a schedule sends to, already known to be of the caller's tenant. */
export type ScheduleTarget = { deviceIntId: number } | { groupIntId: number };

/** A new schedule (shape-checked by the API; times and cron checked here). */
export interface ScheduleInput {
  target: ScheduleTarget;
  scheduleName: string;
  /** 0 once, 1 interval, 2 cron. */
  scheduleType: number;
  /** Type 1: minutes between runs, 1..MAX_INTERVAL_MINUTES. */
  intervalMinute?: number | undefined;
  /** Type 0: when, epoch ms; must be in the future. */
  crontabTime?: number | undefined;
  /** Type 2: five cron fields, UTC. */
  cronExpression?: string | undefined;
  topic?: string | undefined;
  payload: string;
  /** The command's QoS: 1 acknowledged, 2 exactly once, 0 fire and forget (a group's needAck is 1 for 1 and 2). */
  qos: 0 | 1 | 2;
}

/** The timing members a schedule type needs, as FORM_INVALID errors named by their API fields. */
function timingErrors(input: ScheduleInput, now: number): Record<string, string> {
  const errors: Record<string, string> = {};
  if (input.scheduleType === SCHEDULE_TYPE.interval) {
    const m = input.intervalMinute;
    if (m === undefined) errors.IntervalMinute = "required when scheduleType is 1";
    else if (!Number.isInteger(m) || m < 1 || m > MAX_INTERVAL_MINUTES)
      errors.IntervalMinute = `must be a whole number of minutes, 1 to ${MAX_INTERVAL_MINUTES}`;
  } else if (input.scheduleType === SCHEDULE_TYPE.once) {
    if (input.crontabTime === undefined) errors.crontabTime = "required when scheduleType is 0";
    else if (input.crontabTime <= now) errors.crontabTime = "must be in the future";
  } else if (input.scheduleType === SCHEDULE_TYPE.cron) {
    if (!input.cronExpression) errors.cronExpression = "required when scheduleType is 2";
    else {
      const problem = cronProblem(input.cronExpression);
      if (problem) errors.cronExpression = problem;
    }
  } else errors.scheduleType = "must be 0, 1 or 2";
  return errors;
}

function selectSchedules(db: Kysely<Database>, tenantId: string) {
  return db
    .selectFrom("schedules as s")
    .leftJoin("devices as d", "d.id", "s.deviceIntId")
    .leftJoin("groups as g", "g.id", "s.groupIntId")
    .leftJoin("controlLogs as l", "l.id", "s.lastControlLogId")
    .leftJoin("tasks as t", "t.id", "s.lastTaskIntId")
    .selectAll("s")
    .select([
      "d.deviceId as deviceId",
      "d.deviceName as deviceName",
      "g.groupId as groupId",
      "g.groupName as groupName",
      "l.publishStatus as lastPublishStatus",
      "t.taskId as lastTaskId",
      "t.status as lastTaskStatus",
    ])
    .where("s.tenantId", "=", tenantId);
}

/**
 * Stores a schedule of the caller's tenant; it will fire as the caller. FORM_INVALID names `IntervalMinute` (not 1
 * or more), `crontabTime` (not in the future) or `cronExpression` (not five valid cron fields); DATA_NOT_FOUND when
 * the device or group is not the caller's.
 */
export async function createSchedule(
  db: Kysely<Database>,
  caller: Caller,
  input: ScheduleInput,
  now = Date.now(),
): Promise<Schedule> {
  const errors = timingErrors(input, now);
  if (Object.keys(errors).length > 0) throw fail.form(errors);
  const device = "deviceIntId" in input.target ? input.target.deviceIntId : null;
  const group = "groupIntId" in input.target ? input.target.groupIntId : null;
  const owner =
    device !== null
      ? await db
          .selectFrom("devices")
          .select("id")
          .where("id", "=", device)
          .where("tenantId", "=", caller.tenantId)
          .executeTakeFirst()
      : await db
          .selectFrom("groups")
          .select("id")
          .where("id", "=", group!)
          .where("tenantId", "=", caller.tenantId)
          .executeTakeFirst();
  if (!owner) throw fail.notFound(device !== null ? "device" : "group");
  const timing = {
    scheduleType: input.scheduleType,
    intervalMinute: input.scheduleType === SCHEDULE_TYPE.interval ? input.intervalMinute! : null,
    crontabTime: input.scheduleType === SCHEDULE_TYPE.once ? input.crontabTime! : null,
    cronExpression: input.scheduleType === SCHEDULE_TYPE.cron ? input.cronExpression! : null,
  };
  const row = await db
    .insertInto("schedules")
    .values({
      tenantId: caller.tenantId,
      scheduleName: input.scheduleName,
      deviceIntId: device,
      groupIntId: group,
      ...timing,
      topic: input.topic ?? null,
      payload: input.payload,
      qos: input.qos,
      userIntId: caller.userIntId,
      publishUser: caller.username,
      nextRunAt: firstRunAt(timing, now),
      lastRunAt: null,
      lastControlLogId: null,
      lastTaskIntId: null,
      lastError: null,
      createAt: now,
      updateAt: null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return getSchedule(db, caller, row.id, device !== null ? "device" : "group");
}

/** Which schedules: those of devices or those of groups. */
export type ScheduleKind = "device" | "group";

const ofKind = (kind: ScheduleKind) => (kind === "device" ? "s.deviceIntId" : "s.groupIntId");

/** Lists the caller's device or group schedules, newest first (sortable by scheduleName and nextRunAt too). */
export async function listSchedules(
  db: Kysely<Database>,
  caller: Caller,
  kind: ScheduleKind,
  page: Page,
): Promise<ListResult<Schedule>> {
  const q = selectSchedules(db, caller.tenantId).where(ofKind(kind), "is not", null);
  return paginate(q, page, "s.id", ["scheduleName", "nextRunAt", "lastRunAt"]);
}

/** One device or group schedule of the caller's tenant; DATA_NOT_FOUND for unknown and foreign ids alike. */
export async function getSchedule(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  kind: ScheduleKind,
): Promise<Schedule> {
  const row = await selectSchedules(db, caller.tenantId)
    .where("s.id", "=", id)
    .where(ofKind(kind), "is not", null)
    .executeTakeFirst();
  if (!row) throw fail.notFound("schedule");
  return row;
}

/** Deletes device or group schedules of the caller's tenant (foreign and unknown ids are ignored). */
export async function deleteSchedules(
  db: Kysely<Database>,
  caller: Caller,
  kind: ScheduleKind,
  ids: number[],
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .deleteFrom("schedules")
    .where("tenantId", "=", caller.tenantId)
    .where("id", "in", ids)
    .where(kind === "device" ? "deviceIntId" : "groupIntId", "is not", null)
    .execute();
}
