import type { Gateway } from "@iot/registry";
import type { View } from "../view.js";
import { parseJson, type Shape } from "./common.js";
import { tokenOf } from "./devices.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

/** Gateway record: list adds labels and deviceCount; detail adds createUser and the connection. */
export function gateway(g: Gateway, shape: Shape, view: View) {
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
