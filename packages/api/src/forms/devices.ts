import type { Device } from "@iot/registry";
import type { View } from "../view.js";
import { parseJson, type Shape } from "./common.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

/** Form 2 deviceType codes are Form 1's minus one: 0 terminal, 1 gateway, 2 smartphone. */
export const form2DeviceType = (internal: number) => internal - 1;

/** LoRa members that are keys: a viewer never sees them. */
const LORA_KEYS = ["appKey", "nwkSKey", "appSKey"];

/** The `lora` object as the caller may see it: without its keys unless the view carries secrets. */
function loraOf(text: string | null, view: View): unknown {
  const lora = parseJson(text);
  if (view.secrets || lora === null || typeof lora !== "object") return lora;
  return Object.fromEntries(Object.entries(lora).filter(([k]) => !LORA_KEYS.includes(k)));
}

/** `{token}` when the view carries secrets, else nothing: viewers read devices without their token. */
export const tokenOf = (token: string, view: View) => (view.secrets ? { token } : {});

function form1(d: Device, shape: Shape, view: View) {
  const base = {
    id: d.id,
    deviceID: d.deviceId,
    deviceName: d.deviceName,
    deviceUsername: d.deviceUsername,
    ...tokenOf(d.token, view),
    authType: d.authType,
    blocked: d.blocked,
    cloudProtocol: d.cloudProtocol,
    productID: d.productId,
    productIntID: d.productIntId,
    deviceType: d.deviceType,
    ...(d.deviceType === 1 ? { upLinkSystem: d.upLinkSystem } : {}),
    gateway: d.gateway,
    parentDevice: d.parentDevice,
    carrier: d.carrier,
    physicalNetwork: d.physicalNetwork,
    deviceStatus: d.deviceStatus,
    IMEI: d.imei,
    IMSI: d.imsi,
    autoSub: d.autoSub,
    modBusIndex: d.modBusIndex,
    latitude: d.latitude,
    longitude: d.longitude,
    location: parseJson(d.location),
    lora: loraOf(d.lora, view),
    manufacturer: d.manufacturer,
    serialNumber: d.serialNumber,
    softVersion: d.softVersion,
    hardwareVersion: d.hardwareVersion,
    description: d.description,
    deviceConsoleIP: d.deviceConsoleIp,
    deviceConsoleUsername: d.deviceConsoleUsername,
    deviceConsolePort: d.deviceConsolePort,
    metaData: parseJson(d.metaData),
    scopes: parseJson(d.scopes),
    certs: d.certs,
    tenantID: d.tenantId,
    userIntID: d.userIntId,
    createAt: formatDate(d.createAt),
    updateAt: formatDate(d.updateAt),
  };
  if (shape === "write") return base;
  const lang = view.lang;
  const listed = {
    ...base,
    productName: d.productName,
    authTypeLabel: label("authType", d.authType, lang),
    blockedLabel: label("blocked", d.blocked, lang),
    cloudProtocolLabel: label("cloudProtocol", d.cloudProtocol, lang),
    deviceTypeLabel: label("deviceType", d.deviceType, lang),
    deviceStatusLabel: label("deviceStatus", d.deviceStatus, lang),
    carrierLabel: label("carrier", d.carrier, lang),
    physicalNetworkLabel: label("physicalNetwork", d.physicalNetwork, lang),
    ...(d.deviceType === 1 ? { upLinkSystemLabel: label("upLinkSystem", d.upLinkSystem, lang) } : {}),
  };
  if (shape === "list") return listed;
  return {
    ...listed,
    gatewayName: d.gatewayName,
    parentDeviceName: d.parentDeviceName,
    createUser: d.createUser,
    clientIP: d.clientIp,
    connectedAt: formatDate(d.connectedAt),
    keepAlive: d.keepAlive,
  };
}

function form2(d: Device, shape: Shape, view: View) {
  const status = d.deviceStatus === 0 ? 0 : 1; // a sleeping device (2) is registered: online
  const listed = {
    id: d.id,
    authType: d.authType,
    blocked: d.blocked,
    createAt: formatDate(d.createAt),
    deviceID: d.deviceId,
    deviceName: d.deviceName,
    deviceType: form2DeviceType(d.deviceType),
    deviceUsername: d.deviceUsername,
    productID: d.productId,
    ...tokenOf(d.token, view),
    ...(shape === "write"
      ? {}
      : {
          deviceTypeLabel: label("deviceType", d.deviceType, view.lang),
          productName: d.productName,
          status,
          statusLabel: label("deviceStatus", status, view.lang),
        }),
  };
  if (shape === "list") return listed;
  return {
    ...listed,
    clientIP: d.clientIp,
    connectedAt: formatDate(d.connectedAt),
    ...(shape === "detail" ? { createUser: d.createUser } : {}),
    description: d.description,
    hardwareVersion: d.hardwareVersion,
    keepAlive: d.keepAlive,
    location: parseJson(d.location),
    manufacturer: d.manufacturer,
    serialNumber: d.serialNumber,
    softVersion: d.softVersion,
    tenantID: d.tenantId,
    updateAt: formatDate(d.updateAt),
    userIntID: d.userIntId,
    ...(shape === "detail" ? view.brokers : {}),
  };
}

/** Device record in the deployment's form; `shape` picks list, detail or write fields. */
export function device(d: Device, shape: Shape, view: View) {
  return view.form === "1" ? form1(d, shape, view) : form2(d, shape, view);
}
