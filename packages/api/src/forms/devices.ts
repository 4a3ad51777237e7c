import { z } from "zod";
import type { Device } from "@iot/registry";
import type { View } from "../view.js";
import { f, parseJson, type ByForm, type FormShapeOf, type JsonValue, type RecordOf, type Shape } from "./common.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";
import { lwm2mBootstrapOf, lwm2mBootstrapRecord } from "./lwm2m-bootstrap.js";

/** Form 2 deviceType codes are Form 1's minus one: 0 terminal, 1 gateway, 2 smartphone. */
const form2DeviceType = (internal: number) => internal - 1;

/** LoRa members that are keys: a viewer never sees them. */
const LORA_KEYS = ["appKey", "nwkSKey", "appSKey"];

/** The `lora` object as the caller may see it: without its keys unless the view carries secrets. */
function loraOf(text: string | null, view: View): JsonValue {
  const lora = parseJson(text);
  if (view.secrets || lora === null || typeof lora !== "object") return lora;
  return Object.fromEntries(Object.entries(lora).filter(([k]) => !LORA_KEYS.includes(k)));
}

/** `{token}` when the view carries secrets, else nothing: viewers read devices without their token. */
export const tokenOf = (token: string, view: View) => (view.secrets ? { token } : {});

const form1Write = z.object({
  id: f.int,
  deviceID: f.str,
  deviceName: f.str,
  deviceUsername: f.str,
  /** Only for callers that may see secrets. */
  token: f.str.optional(),
  authType: f.int,
  blocked: f.int,
  cloudProtocol: f.int,
  productID: f.str,
  productIntID: f.int,
  deviceType: f.int,
  /** Only on terminals (deviceType 1). */
  upLinkSystem: f.intN.optional(),
  gateway: f.intN,
  parentDevice: f.intN,
  carrier: f.intN,
  physicalNetwork: f.intN,
  deviceStatus: f.int,
  IMEI: f.strN,
  IMSI: f.strN,
  autoSub: f.intN,
  modBusIndex: f.intN,
  latitude: f.numN,
  longitude: f.numN,
  location: f.json,
  lora: f.json,
  manufacturer: f.strN,
  serialNumber: f.strN,
  softVersion: f.strN,
  hardwareVersion: f.strN,
  description: f.strN,
  deviceConsoleIP: f.strN,
  deviceConsoleUsername: f.strN,
  deviceConsolePort: f.intN,
  metaData: f.json,
  scopes: f.json,
  certs: z.array(f.int),
  tenantID: f.str,
  userIntID: f.int,
  createAt: f.date,
  updateAt: f.date,
});
const form1List = form1Write.extend({
  productName: f.str,
  authTypeLabel: f.label,
  blockedLabel: f.label,
  cloudProtocolLabel: f.label,
  deviceTypeLabel: f.label,
  deviceStatusLabel: f.label,
  carrierLabel: f.label,
  physicalNetworkLabel: f.label,
  upLinkSystemLabel: f.label.optional(),
});
const form2List = z.object({
  id: f.int,
  authType: f.int,
  blocked: f.int,
  createAt: f.date,
  deviceID: f.str,
  deviceName: f.str,
  deviceType: f.int.describe("0 terminal, 1 gateway, 2 smartphone"),
  deviceUsername: f.str,
  productID: f.str,
  token: f.str.optional(),
  deviceTypeLabel: f.label,
  productName: f.str,
  status: z.union([z.literal(0), z.literal(1)]),
  statusLabel: f.label,
});
const form2Write = form2List.omit({ deviceTypeLabel: true, productName: true, status: true, statusLabel: true });
const form2More = {
  clientIP: f.strN,
  connectedAt: f.date,
  description: f.strN,
  hardwareVersion: f.strN,
  keepAlive: f.intN,
  location: f.json,
  manufacturer: f.strN,
  serialNumber: f.strN,
  softVersion: f.strN,
  tenantID: f.str,
  updateAt: f.date,
  userIntID: f.int,
};

/** Device records by form and shape: the types `device` returns and the OpenAPI document describes. */
export const deviceRecords = {
  "1": {
    write: form1Write,
    list: form1List,
    detail: form1List.extend({
      gatewayName: f.strN,
      parentDeviceName: f.strN,
      createUser: f.strN,
      clientIP: f.strN,
      connectedAt: f.date,
      keepAlive: f.intN,
      /** LwM2M end devices only. */
      lwm2mBootstrap: lwm2mBootstrapRecord.optional(),
    }),
  },
  "2": {
    write: form2Write.extend(form2More),
    list: form2List,
    // `<protocol>Broker`: `<host>:<port>` of each device listener of the deployment.
    detail: form2List
      .extend({ ...form2More, createUser: f.strN, lwm2mBootstrap: lwm2mBootstrapRecord.optional() })
      .catchall(f.str),
  },
} satisfies ByForm<Record<Shape, z.ZodType>>;

type DeviceRecord = RecordOf<(typeof deviceRecords)["1"]> | RecordOf<(typeof deviceRecords)["2"]>;

function form1(d: Device, shape: Shape, view: View): RecordOf<(typeof deviceRecords)["1"]> {
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
    ...lwm2mBootstrapOf(d),
  };
}

function form2(d: Device, shape: Shape, view: View): RecordOf<(typeof deviceRecords)["2"]> {
  const status: 0 | 1 = d.deviceStatus === 0 ? 0 : 1; // a sleeping device (2) is registered: online
  const core = {
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
  };
  const more = {
    clientIP: d.clientIp,
    connectedAt: formatDate(d.connectedAt),
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
  };
  if (shape === "write") return { ...core, ...more };
  const listed = {
    ...core,
    deviceTypeLabel: label("deviceType", d.deviceType, view.lang),
    productName: d.productName,
    status,
    statusLabel: label("deviceStatus", status, view.lang),
  };
  if (shape === "list") return listed;
  return { ...listed, ...more, createUser: d.createUser, ...lwm2mBootstrapOf(d), ...view.brokers };
}

/** Device record in the deployment's form; `shape` picks list, detail or write fields. */
export function device<S extends Shape>(d: Device, shape: S, view: View): FormShapeOf<typeof deviceRecords, S>;
export function device(d: Device, shape: Shape, view: View): DeviceRecord {
  return view.form === "1" ? form1(d, shape, view) : form2(d, shape, view);
}
