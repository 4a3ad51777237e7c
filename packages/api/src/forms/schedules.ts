import type { Schedule } from "@iot/registry";
import { formatDate } from "./dates.js";

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
export function schedule(s: Schedule) {
  const target =
    s.deviceIntId !== null
      ? { deviceIntID: s.deviceIntId, deviceID: s.deviceId, deviceName: s.deviceName, topic: s.topic, qos: s.qos }
      : { groupIntID: s.groupIntId, groupID: s.groupId, groupName: s.groupName, needAck: s.qos };
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
