import type { ConnectLog, ControlLog, Device, DeviceEvent, Product } from "@iot/registry";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

const parseJson = (text: string | null): unknown => {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** Payload bytes as text: UTF-8 when they are valid UTF-8, base64 otherwise. */
export function payloadText(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return Buffer.from(bytes).toString("base64");
  }
}

/** Product record. `view` decides labels and joined names (create omits them). */
export function product(p: Product, view: "list" | "detail" | "create") {
  return {
    id: p.id,
    productID: p.productId,
    productName: p.productName,
    description: p.description,
    cloudProtocol: p.cloudProtocol,
    ...(view !== "create" ? { cloudProtocolLabel: label("cloudProtocol", p.cloudProtocol), deviceCount: p.deviceCount } : {}),
    tenantID: p.tenantId,
    userIntID: p.userIntId,
    createAt: formatDate(p.createAt),
    updateAt: formatDate(p.updateAt),
  };
}

/** Device record: list omits the detail-only fields, create omits labels and joined names too. */
export function device(d: Device, view: "list" | "detail" | "create") {
  const base = {
    id: d.id,
    deviceID: d.deviceId,
    deviceName: d.deviceName,
    deviceUsername: d.deviceUsername,
    token: d.token,
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
    lora: parseJson(d.lora),
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
    tenantID: d.tenantId,
    userIntID: d.userIntId,
    createAt: formatDate(d.createAt),
    updateAt: formatDate(d.updateAt),
  };
  if (view === "create") return base;
  const labelled = {
    ...base,
    productName: d.productName,
    authTypeLabel: label("authType", d.authType),
    cloudProtocolLabel: label("cloudProtocol", d.cloudProtocol),
    deviceTypeLabel: label("deviceType", d.deviceType),
    deviceStatusLabel: label("deviceStatus", d.deviceStatus),
    ...(d.deviceType === 1 ? { upLinkSystemLabel: label("upLinkSystem", d.upLinkSystem) } : {}),
  };
  if (view === "list") return labelled;
  return {
    ...labelled,
    gatewayName: d.gatewayName,
    parentDeviceName: d.parentDeviceName,
    createUser: d.createUser,
    clientIP: d.clientIp,
    connectedAt: formatDate(d.connectedAt),
    keepAlive: d.keepAlive,
  };
}

/** Uplink message (device event). */
export function event(e: DeviceEvent) {
  return {
    id: e.id,
    IP: e.ip,
    createAt: formatDate(e.createAt),
    msgTime: formatDate(e.msgTime),
    deviceID: e.deviceId,
    deviceName: e.deviceName,
    payload: payloadText(e.payload),
    topic: e.topic,
    updateAt: null,
  };
}

/** Connect log (Form 1: connectStatus + label). */
export function connectLog(l: ConnectLog) {
  return {
    id: l.id,
    IP: l.ip,
    createAt: formatDate(l.createAt),
    deviceID: l.deviceId,
    deviceName: l.deviceName,
    keepAlive: l.keepAlive,
    tenantID: l.tenantId,
    updateAt: formatDate(l.updateAt),
    connectStatus: l.connectStatus,
    connectStatusLabel: label("connectStatus", l.connectStatus),
  };
}

/** Device control log (downlink command). */
export function controlLog(l: ControlLog) {
  return {
    id: l.id,
    deviceIntID: l.deviceIntId,
    deviceName: l.deviceName,
    payload: l.payload,
    topic: l.topic,
    publishStatus: l.publishStatus,
    publishStatusLabel: label("publishStatus", l.publishStatus),
    publishUser: l.publishUser,
    userIntID: l.userIntId,
    createAt: formatDate(l.createAt),
    updateAt: formatDate(l.updateAt),
  };
}

/** The list envelope: `{items, meta: {count, limit, page}}`. */
export function list<T, R>(r: { items: T[]; count: number; page: number; limit: number }, map: (t: T) => R) {
  return { items: r.items.map(map), meta: { count: r.count, limit: r.limit, page: r.page } };
}
