import type { GroupControlLog, HistoryAlert } from "@iot/registry";
import type { View } from "../view.js";
import { parseJson } from "./common.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

/** Historical alert record; `alertDetail` is the object of measured values (empty object when none was recorded). */
export function historyAlert(a: HistoryAlert, view: View) {
  return {
    id: a.id,
    alertName: a.alertName,
    alertContent: a.alertContent,
    alertDetail: parseJson(a.alertDetail) ?? {},
    alertSeverity: a.alertSeverity,
    alertSeverityLabel: label("alertSeverity", a.alertSeverity, view.lang),
    alertTimes: a.alertTimes,
    deviceID: a.deviceId,
    deviceName: a.deviceName,
    startTime: formatDate(a.startTime),
    endTime: formatDate(a.endTime),
    createAt: formatDate(a.createAt),
    updateAt: formatDate(a.updateAt),
  };
}

/** Group control log record (a command sent to a group); the same in both forms. */
export function groupControlLog(l: GroupControlLog, view: View) {
  return {
    id: l.id,
    groupID: l.groupId,
    groupName: l.groupName,
    payload: l.payload,
    publishStatus: l.publishStatus,
    publishStatusLabel: label("publishStatus", l.publishStatus, view.lang),
    publishUser: l.publishUser,
    userIntID: l.userIntId,
    createAt: formatDate(l.createAt),
    updateAt: formatDate(l.updateAt),
  };
}
