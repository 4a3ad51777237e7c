import { z } from "zod";
import type { GroupControlLog, HistoryAlert } from "@iot/registry";
import type { View } from "../view.js";
import { f, parseJson } from "./common.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

/** A historical alert record. */
export const historyAlertRecord = z.object({
  id: f.int,
  alertName: f.strN,
  alertContent: f.strN,
  alertDetail: f.json,
  alertSeverity: f.intN,
  alertSeverityLabel: f.label,
  alertTimes: f.intN,
  deviceID: f.strN,
  deviceName: f.strN,
  startTime: f.date,
  endTime: f.date,
  createAt: f.date,
  updateAt: f.date,
});

/** A group control log record. */
export const groupControlLogRecord = z.object({
  id: f.int,
  groupID: f.str,
  groupName: f.str,
  payload: f.str,
  publishStatus: f.int,
  publishStatusLabel: f.label,
  publishUser: f.strN,
  userIntID: f.intN,
  createAt: f.date,
  updateAt: f.date,
});

/** Historical alert record; `alertDetail` is the object of measured values (empty object when none was recorded). */
export function historyAlert(a: HistoryAlert, view: View): z.output<typeof historyAlertRecord> {
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
export function groupControlLog(l: GroupControlLog, view: View): z.output<typeof groupControlLogRecord> {
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
