import { z } from "zod";
import { f, type JsonValue } from "./common.js";
import { uplinkMetadata, type ConnectLog, type ControlLog, type DeviceEvent } from "@iot/registry";
import type { View } from "../view.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

/** Payload bytes as text: UTF-8 when they are valid UTF-8, base64 otherwise. */
export function payloadText(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return Buffer.from(bytes).toString("base64");
  }
}

const eventBase = z.object({
  id: f.int,
  IP: f.strN,
  createAt: f.date,
  deviceID: f.str,
  deviceName: f.str,
  payload: f.str.describe("UTF-8 text, or base64 when the bytes are not UTF-8"),
  topic: f.str,
  updateAt: z.null(),
  /** How the message arrived (LoRaWAN radio metadata, MQTT 5.0 properties); only on events that have it. */
  metadata: f.json.optional(),
});
const connectBase = z.object({
  id: f.int,
  IP: f.strN,
  createAt: f.date,
  deviceID: f.strN,
  deviceName: f.strN,
  keepAlive: f.intN,
  tenantID: f.strN,
  updateAt: f.date,
});

/** Log records by form: uplink events, connect logs, device and gateway control logs. */
export const logRecords = {
  event: { "1": eventBase.extend({ msgTime: f.date }), "2": eventBase.extend({ productName: f.str }) },
  connect: {
    "1": connectBase.extend({ connectStatus: f.int, connectStatusLabel: f.label }),
    "2": connectBase.extend({ deviceStatus: f.str, deviceStatusLabel: f.label }),
  },
  control: z.object({
    id: f.int,
    deviceIntID: f.intN,
    deviceName: f.str,
    payload: f.str,
    topic: f.strN,
    publishStatus: f.int,
    publishStatusLabel: f.label,
    publishUser: f.strN,
    publishResult: f.strN,
    userIntID: f.intN,
    createAt: f.date,
    updateAt: f.date,
  }),
  gatewayControl: z.object({
    id: f.int,
    deviceIntID: f.intN,
    createUser: f.strN,
    createAt: f.date,
    payload: z.record(z.string(), z.unknown()),
    publishStatus: f.int,
    publishResult: f.strN,
  }),
};

/** Uplink message. Form 2 adds productName and has no msgTime. */
export function event(
  e: DeviceEvent,
  view: View,
): z.output<(typeof logRecords.event)["1"]> | z.output<(typeof logRecords.event)["2"]> {
  const common = {
    id: e.id,
    IP: e.ip,
    createAt: formatDate(e.createAt),
    deviceID: e.deviceId,
    deviceName: e.deviceName,
    payload: payloadText(e.payload),
    topic: e.topic,
    updateAt: null,
    // How the message arrived (LoRaWAN: gateways, RSSI, SNR, frequency, data rate; MQTT 5.0: its properties); only on
    // events that have it.
    ...(e.metadata ? { metadata: uplinkMetadata(e.metadata) as JsonValue } : {}),
  };
  return view.form === "1" ? { ...common, msgTime: formatDate(e.msgTime) } : { ...common, productName: e.productName };
}

/** Connect log: Form 1 `connectStatus`, Form 2 `deviceStatus` as a string; both with a label. */
export function connectLog(
  l: ConnectLog,
  view: View,
): z.output<(typeof logRecords.connect)["1"]> | z.output<(typeof logRecords.connect)["2"]> {
  const statusLabel = label("connectStatus", l.connectStatus, view.lang);
  return {
    id: l.id,
    IP: l.ip,
    createAt: formatDate(l.createAt),
    deviceID: l.deviceId,
    deviceName: l.deviceName,
    keepAlive: l.keepAlive,
    tenantID: l.tenantId,
    updateAt: formatDate(l.updateAt),
    ...(view.form === "1"
      ? { connectStatus: l.connectStatus, connectStatusLabel: statusLabel }
      : { deviceStatus: String(l.connectStatus), deviceStatusLabel: statusLabel }),
  };
}

/** Device control log (downlink command). */
export function controlLog(l: ControlLog, view: View): z.output<typeof logRecords.control> {
  return {
    id: l.id,
    deviceIntID: l.deviceIntId,
    deviceName: l.deviceName,
    payload: l.payload,
    topic: l.topic,
    publishStatus: l.publishStatus,
    publishStatusLabel: label("publishStatus", l.publishStatus, view.lang),
    publishUser: l.publishUser,
    publishResult: l.result,
    userIntID: l.userIntId,
    createAt: formatDate(l.createAt),
    updateAt: formatDate(l.updateAt),
  };
}

/**
 * Gateway control log, the same in both forms: `{id, deviceIntID, createUser, createAt, payload}` with payload an
 * object, plus `publishStatus` and `publishResult` (whether the gateway applied it, and what it said). A command
 * whose payload is a JSON object (as a gateway's channel configuration `{channel: [...]}` is) shows that object;
 * any other payload is shown as `{text: <payload>}`.
 */
export function gatewayControlLog(l: ControlLog): z.output<typeof logRecords.gatewayControl> {
  return {
    id: l.id,
    deviceIntID: l.deviceIntId,
    createUser: l.publishUser,
    createAt: formatDate(l.createAt),
    payload: payloadObject(l.payload),
    publishStatus: l.publishStatus,
    publishResult: l.result,
  };
}

function payloadObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    /* not JSON: shown as text below */
  }
  return { text };
}
