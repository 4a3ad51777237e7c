import { z } from "zod";
import type { Gateway } from "@iot/registry";
import type { View } from "../view.js";
import { f, parseJson, type RecordOf, type Shape, type ShapeOf } from "./common.js";
import { tokenOf } from "./devices.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

const write = z.object({
  id: f.int,
  gatewayName: f.str,
  deviceID: f.str,
  deviceUsername: f.str,
  /** Only for callers that may see secrets. */
  token: f.str.optional(),
  authType: f.int,
  blocked: f.int,
  deviceStatus: f.int,
  gatewayProtocol: f.intN,
  upLinkNetwork: f.intN,
  upLinkProtocol: f.intN,
  mac: f.strN,
  channel: f.json,
  productID: f.str,
  deviceConsoleIP: f.strN,
  deviceConsolePort: f.intN,
  deviceConsoleUsername: f.strN,
  location: f.json,
  manufacturer: f.strN,
  serialNumber: f.strN,
  softVersion: f.strN,
  hardwareVersion: f.strN,
  description: f.strN,
  certs: z.array(f.int),
  tenantID: f.str,
  userIntID: f.int,
  createAt: f.date,
  updateAt: f.date,
});
const list = write.extend({
  productName: f.str,
  deviceCount: f.int,
  authTypeLabel: f.label,
  deviceStatusLabel: f.label,
  gatewayProtocolLabel: f.label,
  upLinkNetworkLabel: f.label,
  upLinkProtocolLabel: f.label,
});

/** Gateway records by shape, the same in both forms. */
export const gatewayRecords = {
  write,
  list,
  detail: list.extend({ createUser: f.strN, clientIP: f.strN, connectedAt: f.date, keepAlive: f.intN }),
} satisfies Record<Shape, z.ZodType>;

/** Gateway record: list adds labels and deviceCount; detail adds createUser and the connection. */
export function gateway<S extends Shape>(g: Gateway, shape: S, view: View): ShapeOf<typeof gatewayRecords, S>;
export function gateway(g: Gateway, shape: Shape, view: View): RecordOf<typeof gatewayRecords> {
  const base = {
    id: g.id,
    gatewayName: g.deviceName,
    deviceID: g.deviceId,
    deviceUsername: g.deviceUsername,
    ...tokenOf(g.token, view),
    authType: g.authType,
    blocked: g.blocked,
    deviceStatus: g.deviceStatus,
    gatewayProtocol: g.gatewayProtocol,
    upLinkNetwork: g.upLinkNetwork,
    upLinkProtocol: g.upLinkProtocol,
    mac: g.mac,
    channel: parseJson(g.channel),
    productID: g.productId,
    deviceConsoleIP: g.deviceConsoleIp,
    deviceConsolePort: g.deviceConsolePort,
    deviceConsoleUsername: g.deviceConsoleUsername,
    location: parseJson(g.location),
    manufacturer: g.manufacturer,
    serialNumber: g.serialNumber,
    softVersion: g.softVersion,
    hardwareVersion: g.hardwareVersion,
    description: g.description,
    certs: g.certs,
    tenantID: g.tenantId,
    userIntID: g.userIntId,
    createAt: formatDate(g.createAt),
    updateAt: formatDate(g.updateAt),
  };
  if (shape === "write") return base;
  const lang = view.lang;
  const listed = {
    ...base,
    productName: g.productName,
    deviceCount: g.deviceCount,
    authTypeLabel: label("authType", g.authType, lang),
    deviceStatusLabel: label("deviceStatus", g.deviceStatus, lang),
    gatewayProtocolLabel: label("cloudProtocol", g.gatewayProtocol, lang),
    upLinkNetworkLabel: label("upLinkNetwork", g.upLinkNetwork, lang),
    upLinkProtocolLabel: label("cloudProtocol", g.upLinkProtocol, lang),
  };
  if (shape === "list") return listed;
  return {
    ...listed,
    createUser: g.createUser,
    clientIP: g.clientIp,
    connectedAt: formatDate(g.connectedAt),
    keepAlive: g.keepAlive,
  };
}
