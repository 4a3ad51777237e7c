import { z } from "zod";
import type { Schedule } from "@iot/registry";
import { f } from "./common.js";
import { formatDate } from "./dates.js";

const lastResultRecord = z
  .union([
    z.object({ error: f.str }),
    z.object({ taskID: f.str, statusUrl: f.str, status: f.intN }),
    z.object({ controlLogIntID: f.int, publishStatus: f.strN }),
  ])
  .nullable();
const scheduleBase = {
  id: f.int,
  scheduleName: f.str,
  scheduleType: f.int,
  IntervalMinute: f.strN,
  crontabTime: f.date,
  cronExpression: f.strN,
  payload: f.str,
  nextRunAt: f.date,
  lastRunAt: f.date,
  lastResult: lastResultRecord,
  createUser: f.strN,
  userIntID: f.intN,
  tenantID: f.str,
  createAt: f.date,
  updateAt: f.date,
};

/** Schedule records: of a device, and of a group. */
export const scheduleRecords = {
  device: z.object({
    ...scheduleBase,
    deviceIntID: f.int,
    deviceID: f.strN,
    deviceName: f.strN,
    topic: f.strN,
    qos: f.int,
  }),
  group: z.object({
    ...scheduleBase,
    groupIntID: f.intN,
    groupID: f.strN,
    groupName: f.strN,
    needAck: f.int,
    /** Our addition: the QoS each member gets (needAck is 1 for 1 and 2). */
    qos: f.int,
  }),
};

/** What the last run of a schedule did: its device command or group task, or why it could not issue one. */
function lastResult(s: Schedule) {
  if (s.lastError !== null) return { error: s.lastError };
  if (s.lastTaskId !== null)
    return { taskID: s.lastTaskId, statusUrl: `/task_status/${s.lastTaskId}`, status: s.lastTaskStatus };
  if (s.lastControlLogId !== null)
    return {
      controlLogIntID: s.lastControlLogId,
      // The command's current state (null once retention removed its log).
      publishStatus: s.lastPublishStatus === null ? null : String(s.lastPublishStatus),
    };
  return null;
}

/**
 * A device or group schedule (our addition: the spec has no schedule record). `nextRunAt` is null once the schedule
 * has ended (a scheduleType 0 schedule after its run); `lastResult` tells what its last run did.
 */
export function schedule(
  s: Schedule,
): z.output<typeof scheduleRecords.device> | z.output<typeof scheduleRecords.group> {
  const target =
    s.deviceIntId !== null
      ? { deviceIntID: s.deviceIntId, deviceID: s.deviceId, deviceName: s.deviceName, topic: s.topic, qos: s.qos }
      : {
          groupIntID: s.groupIntId,
          groupID: s.groupId,
          groupName: s.groupName,
          needAck: Math.min(s.qos, 1),
          qos: s.qos,
        };
  return {
    id: s.id,
    scheduleName: s.scheduleName,
    scheduleType: s.scheduleType,
    IntervalMinute: s.intervalMinute === null ? null : String(s.intervalMinute),
    crontabTime: formatDate(s.crontabTime),
    cronExpression: s.cronExpression,
    ...target,
    payload: s.payload,
    nextRunAt: formatDate(s.nextRunAt),
    lastRunAt: formatDate(s.lastRunAt),
    lastResult: lastResult(s),
    createUser: s.publishUser,
    userIntID: s.userIntId,
    tenantID: s.tenantId,
    createAt: formatDate(s.createAt),
    updateAt: formatDate(s.updateAt),
  };
}
