import { z } from "zod";
import {
  checkCommand,
  createSchedule,
  deleteSchedules,
  fail,
  getDevice,
  getDeviceByDeviceId,
  getSchedule,
  groupOfCommand,
  listSchedules,
  type ScheduleKind,
} from "@iot/registry";
import type { Context } from "hono";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { schedule } from "../forms/schedules.js";
import { codeField, dateQuery, idParam, idsFrom, idsQuery, intField, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import type { Env } from "../deps.js";
import { groupQos, publishBody } from "./publish.js";
import { listOf } from "../forms/common.js";
import { scheduleRecords } from "../forms/schedules.js";

/** When a schedule runs: type 0 + crontabTime, 1 + IntervalMinute, 2 + cronExpression (checked in the registry). */
const timing = {
  scheduleName: z.string().trim().min(1, "required").max(100, "at most 100 characters"),
  scheduleType: codeField([0, 1, 2]),
  /** Minutes between runs (scheduleType 1), a number or a digit string. */
  IntervalMinute: intField.optional(),
  /** When to run once (scheduleType 0): `YYYY-MM-DD HH:MM:SS`, UTC, in the future. */
  crontabTime: dateQuery,
  /** Five cron fields, UTC (scheduleType 2; our addition). */
  cronExpression: z.string().trim().max(100, "at most 100 characters").optional(),
};

const deviceScheduleBody = z.strictObject({
  deviceID: z.string().min(1, "required"),
  deviceIntID: intField.optional(),
  payload: publishBody.shape.payload,
  topic: publishBody.shape.topic,
  /** As `device_publish`'s: 1 (default) acknowledged, 2 exactly once (MQTT QoS 2), 0 fire and forget. */
  qos: codeField([0, 1, 2]).optional(),
  ...timing,
});

const groupScheduleBody = z.strictObject({
  groupID: z.string().min(1, "required"),
  groupIntID: intField.optional(),
  payload: publishBody.shape.payload,
  needAck: codeField([0, 1]).optional(),
  /** Our addition, as `group_publish`'s: each member's QoS; 1 or 2 is needAck 1, 0 needAck 0 (they must agree). */
  qos: codeField([0, 1, 2]).optional(),
  ...timing,
});

const timingOf = (b: z.infer<typeof deviceScheduleBody> | z.infer<typeof groupScheduleBody>) => ({
  scheduleName: b.scheduleName,
  scheduleType: b.scheduleType,
  intervalMinute: b.IntervalMinute,
  crontabTime: b.crontabTime,
  cronExpression: b.cronExpression,
});

/** 201 with no body, as the spec answers; `Location` names the new schedule's detail. */
const created = (c: Context<Env>, path: string, id: number) => {
  c.header("Location", `/api/v1${path}/${id}`);
  return c.body(null, 201);
};

/**
 * Scheduled commands: `POST /device_schedule_publish` and `POST /group_schedule_publish` store a schedule (201
 * empty) once its payload passes the checks device_publish and group_publish apply; `GET` lists them and `GET
 * …/{id}` shows one with its next run and last result (our addition); `DELETE ?ids=` removes them. Each run is a
 * normal device or group command (docs/schedules.md).
 */
export function scheduleRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  const router = new ApiRouter(docs, "Schedules")
    .post(
      "/device_schedule_publish",
      { summary: "Schedule a command to a device (once, every N minutes, or by cron)", body: deviceScheduleBody },
      async (c, { body }) => {
        const caller = c.get("caller");
        const device =
          body.deviceIntID !== undefined
            ? await getDevice(db, caller, body.deviceIntID)
            : await getDeviceByDeviceId(db, caller, body.deviceID);
        if (device.deviceId !== body.deviceID) throw fail.form({ deviceIntID: "is not the device named by deviceID" });
        await checkCommand(db, { deviceIntId: device.id }, body.payload, body.topic);
        const s = await createSchedule(db, caller, {
          target: { deviceIntId: device.id },
          ...timingOf(body),
          topic: body.topic,
          payload: body.payload,
          qos: (body.qos ?? 1) as 0 | 1 | 2,
        });
        return created(c, "/device_schedule_publish", s.id);
      },
    )
    .post(
      "/group_schedule_publish",
      { summary: "Schedule a command to every device of a group", body: groupScheduleBody },
      async (c, { body }) => {
        const caller = c.get("caller");
        const group = await groupOfCommand(db, caller, body.groupID, body.groupIntID);
        await checkCommand(db, { groupIntId: group.id }, body.payload, undefined);
        const s = await createSchedule(db, caller, {
          target: { groupIntId: group.id },
          ...timingOf(body),
          payload: body.payload,
          qos: groupQos(body),
        });
        return created(c, "/group_schedule_publish", s.id);
      },
    );
  for (const [path, kind] of [
    ["/device_schedule_publish", "device"],
    ["/group_schedule_publish", "group"],
  ] as Array<[string, ScheduleKind]>) {
    router
      .get(
        path,
        {
          summary: `List ${kind} schedules with their next run and last result`,
          query: listQuery({}),
          response: listOf(scheduleRecords[kind]),
        },
        async (c, { query }) => list(await listSchedules(db, c.get("caller"), kind, pageFrom(query)), schedule),
      )
      .get(
        `${path}/:id`,
        { summary: `A ${kind} schedule with its next run and last result`, response: scheduleRecords[kind] },
        async (c) => schedule(await getSchedule(db, c.get("caller"), idParam(c), kind)),
      )
      .delete(path, { summary: `Delete ${kind} schedules`, query: idsQuery }, async (c, { query }) => {
        await deleteSchedules(db, c.get("caller"), kind, idsFrom(query));
      });
  }
  return router.app;
}
