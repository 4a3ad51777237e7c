import { answer, CliError, dynamicCall } from "../client.js";
import { loggedIn, type CommandContext } from "../context.js";
import { printRecord, printRecords } from "../output.js";

/** Which schedules a command works on: a device's (`device_schedule_publish`) or a group's. */
export type ScheduleKind = "device" | "group";

const pathOf = (kind: ScheduleKind) => `/api/v1/${kind}_schedule_publish` as const;

const COLUMNS = {
  device: ["id", "scheduleName", "deviceID", "topic", "payload", "nextRunAt", "lastRunAt"],
  group: ["id", "scheduleName", "groupID", "payload", "nextRunAt", "lastRunAt"],
};

/** When a new schedule runs: exactly one of once at a time, every N minutes, or by a cron expression. */
export interface ScheduleTiming {
  at?: string | undefined;
  every?: number | undefined;
  cron?: string | undefined;
}

/** The create body's timing members (scheduleType 0 + crontabTime, 1 + IntervalMinute, 2 + cronExpression). */
function timingBody(t: ScheduleTiming): Record<string, unknown> {
  const given = [t.at, t.every, t.cron].filter((v) => v !== undefined);
  if (given.length !== 1) throw new CliError("give exactly one of --at, --every and --cron");
  if (t.at !== undefined) return { scheduleType: 0, crontabTime: t.at };
  if (t.every !== undefined) return { scheduleType: 1, IntervalMinute: t.every };
  return { scheduleType: 2, cronExpression: t.cron };
}

/** `iot schedules list [--group]`: one page of the device (or group) schedules, with their next and last runs. */
export async function listSchedules(
  ctx: CommandContext,
  kind: ScheduleKind,
  o: { page?: number | undefined; limit?: number | undefined },
): Promise<void> {
  const r = await dynamicCall(loggedIn(ctx), "GET", pathOf(kind), {
    params: { query: { _page: o.page ?? 1, _limit: o.limit ?? 20 } },
  });
  if (ctx.json) return ctx.io.out(`${JSON.stringify(r, null, 2)}\n`);
  printRecords(ctx.io, r.items, false, COLUMNS[kind]);
  ctx.io.out(`page ${r.meta.page}, ${r.items.length} of ${r.meta.count}\n`);
}

/**
 * `iot schedules create <deviceID|groupID> <payload> --name N (--at T | --every M | --cron E) [--group] [--topic]
 * [--qos]`: stores the schedule, then shows it as the API lists it (the create answers 201 with only its `Location`).
 */
export async function createSchedule(
  ctx: CommandContext,
  kind: ScheduleKind,
  target: string,
  payload: string,
  o: ScheduleTiming & { name: string; topic?: string | undefined; qos?: 0 | 1 | 2 | undefined },
): Promise<void> {
  const client = loggedIn(ctx);
  const body = {
    ...(kind === "device" ? { deviceID: target } : { groupID: target }),
    payload,
    scheduleName: o.name,
    ...(o.topic !== undefined ? { topic: o.topic } : {}),
    ...(o.qos !== undefined ? { qos: o.qos } : {}),
    ...timingBody(o),
  };
  const call = client.POST(pathOf(kind) as "/api/v1/device_schedule_publish", { body: body as never });
  await answer(call);
  const id = /\/(\d+)$/.exec((await call).response.headers.get("location") ?? "")?.[1];
  if (id === undefined) throw new CliError("the API did not say where the new schedule is");
  const created = await dynamicCall(client, "GET", `${pathOf(kind)}/{id}` as const, {
    params: { path: { id: Number(id) } },
  });
  printRecord(ctx.io, created, ctx.json);
}

/** `iot schedules delete [--group] <id…>`. */
export async function deleteSchedules(ctx: CommandContext, kind: ScheduleKind, ids: number[]): Promise<void> {
  await dynamicCall(loggedIn(ctx), "DELETE", pathOf(kind), { params: { query: { ids: ids.join(",") } } });
  if (ctx.json) ctx.io.out(`${JSON.stringify({ deleted: ids })}\n`);
  else ctx.io.out(`deleted ${ids.join(", ")}\n`);
}
