import { z } from "zod";
import { boundedJsonText } from "../bounded-json.js";
import { lwm2mBootstrapBody } from "../forms/lwm2m-bootstrap.js";
import { codeField, floatField, intField, jsonArrayField } from "../params.js";
import { gatewayChannel } from "./gateway-channel.js";

/** Identifiers are topic- and URL-safe: letters, digits and `_ . : -`. */
const identifier = z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, "1 to 100 letters, digits or _ . : -");
/** A control character other than TAB and LF (Unicode category Cc). */
const CONTROL = /[^\P{Cc}\t\n]/u;
/** Half of a UTF-16 surrogate pair, alone: no UTF-8 text can hold it. */
const LONE_SURROGATE = /\p{Cs}/u;
/**
 * Device text must come back the same through a CSV export and import (UTF-8, docs/devices/import-export.md): no
 * control characters but TAB and LF (a NUL makes the file unreadable, a CR is read back as a line end), and no lone
 * surrogate (UTF-8 has none).
 */
const plain = (s: z.ZodString) =>
  s
    .refine((v) => !CONTROL.test(v), "must not hold control characters (TAB and line feed are allowed)")
    .refine((v) => !LONE_SURROGATE.test(v), "must be well-formed Unicode text");
/** An optional text member; "" is stored as none (as an empty CSV cell is read). */
const text = (max: number) =>
  plain(z.string().max(max, `at most ${max} characters`))
    .nullish()
    .transform((v) => (v === "" ? null : v));
/** Longest JSON text of a JSON member (location, metaData, scopes, lora), characters. */
const MAX_DEVICE_JSON = 65_536;
/** JSON members are stored as JSON text, bounded in depth and length (bounded-json.ts). */
const json = z
  .unknown()
  .optional()
  .transform((v, ctx) => (v === undefined || v === null ? null : boundedJsonText(v, ctx, MAX_DEVICE_JSON)));
/** `scopes`, the fence ranges: a JSON array (or a string holding one), stored as JSON text. */
const scopes = jsonArrayField(MAX_DEVICE_JSON).transform((v) =>
  v === undefined || v === null ? null : JSON.stringify(v),
);

/** Every member a Form 1 device body may carry; the creation rules are checked by the registry. */
const form1Fields = {
  productID: z.string().min(1, "required"),
  deviceName: plain(z.string().trim().min(1, "required").max(50, "at most 50 characters")),
  deviceType: codeField([1, 3]).optional(),
  upLinkSystem: codeField([1, 2, 3]).nullish(),
  gateway: intField.nullish(),
  parentDevice: intField.nullish(),
  authType: codeField([1, 2]).optional(),
  deviceID: identifier.optional(),
  deviceUsername: identifier.optional(),
  token: plain(z.string().min(8, "at least 8 characters").max(100, "at most 100 characters")).optional(),
  carrier: codeField([1, 2, 3, 4]).nullish(),
  physicalNetwork: codeField([1, 2, 3, 4, 5, 6]).nullish(),
  IMEI: text(50),
  IMSI: text(50),
  autoSub: codeField([0, 1]).nullish(),
  modBusIndex: intField.refine((v) => v >= 0 && v <= 255, "must be 0 to 255").nullish(),
  latitude: floatField.nullish(),
  longitude: floatField.nullish(),
  location: json,
  lora: z
    .record(z.string(), z.unknown())
    .superRefine((v, ctx) => void boundedJsonText(v, ctx, MAX_DEVICE_JSON))
    .nullish(),
  lwm2mBootstrap: lwm2mBootstrapBody,
  manufacturer: text(50),
  serialNumber: text(100),
  softVersion: text(50),
  hardwareVersion: text(50),
  description: text(300),
  deviceConsoleIP: text(100),
  deviceConsoleUsername: text(100),
  deviceConsolePort: intField.refine((v) => v >= 0 && v <= 65535, "must be a port number").nullish(),
  metaData: json,
  scopes,
  certs: z.array(intField).max(100, "at most 100 certificates").optional(),
  blocked: codeField([0, 1]).optional(),
};

/** API member names → registry field names. */
function toInput<
  T extends {
    productID?: string | undefined;
    deviceID?: string | undefined;
    IMEI?: string | null | undefined;
    IMSI?: string | null | undefined;
    deviceConsoleIP?: string | null | undefined;
  },
>(b: T) {
  const { productID, deviceID, IMEI, IMSI, deviceConsoleIP, ...rest } = b;
  return {
    ...rest,
    productId: productID,
    deviceId: deviceID,
    imei: IMEI,
    imsi: IMSI,
    deviceConsoleIp: deviceConsoleIP,
  };
}

/**
 * One row of a device import, with ids already resolved: a Form 1 device body in which deviceType may also be 2 (a
 * gateway), mapped to the registry's input like `POST /devices`.
 */
export const deviceImportRow = z
  .object({ ...form1Fields, deviceType: codeField([1, 2, 3]).optional() })
  .transform((b) => ({ ...toInput(b), productId: b.productID }));

/** Form 2 create body: deviceType 0 terminal, 1 gateway, 2 smartphone; authType required. */
const form2Create = z.object({
  deviceName: form1Fields.deviceName,
  productID: form1Fields.productID,
  deviceType: codeField([0, 1, 2]).transform((t) => t + 1),
  authType: codeField([1, 2]),
  manufacturer: text(50),
  serialNumber: text(100),
  softVersion: text(50),
  hardwareVersion: text(50),
  description: text(300),
  location: json,
  deviceID: identifier.optional(),
  deviceUsername: identifier.optional(),
  token: form1Fields.token,
  certs: form1Fields.certs,
});

/** The device create body of a form, mapped to the registry's input. */
export function deviceCreateBody(form: "1" | "2") {
  if (form === "1") return z.object(form1Fields).transform((b) => ({ ...toInput(b), productId: b.productID }));
  // Form 2 has no upLinkSystem: its terminals connect to the cloud directly.
  return form2Create.transform((b) => ({
    ...toInput(b),
    productId: b.productID,
    ...(b.deviceType === 1 ? { upLinkSystem: 1 } : {}),
  }));
}

/** Form 2 edit body: only these members change; anything else in the body is ignored. */
const form2Edit = z.object({
  deviceName: form1Fields.deviceName.optional(),
  deviceType: codeField([0, 1, 2])
    .transform((t) => t + 1)
    .optional(),
  softVersion: text(50),
  hardwareVersion: text(50),
  manufacturer: text(50),
  serialNumber: text(100),
  location: json.optional(),
  description: text(300),
  authType: codeField([1, 2]).optional(),
  blocked: codeField([0, 1]).optional(),
  lwm2mBootstrap: lwm2mBootstrapBody,
});

/**
 * What a Form 2 edit of `deviceType` implies for the Form 1 members Form 2
 * does not have: a terminal (1) connects to the cloud directly (upLinkSystem
 * 1, as Form 2 creates it), a smartphone (3) has no upLinkSystem, gateway or
 * upper device. Nothing when the kind stays (a terminal keeps its gateway).
 */
export function form2KindChange(current: number, deviceType: number | undefined) {
  if (deviceType === undefined || deviceType === current) return {};
  if (deviceType === 1) return { upLinkSystem: 1 };
  if (deviceType === 3) return { upLinkSystem: null, gateway: null, parentDevice: null };
  return {};
}

/**
 * The device edit body of a form. Edits may send the whole record with its
 * read-only members (id, createAt, labels, names…): those are accepted and ignored.
 */
export function deviceEditBody(form: "1" | "2") {
  if (form === "2") return form2Edit;
  const partial = Object.fromEntries(Object.entries(form1Fields).map(([k, v]) => [k, (v as z.ZodType).optional()])) as {
    [K in keyof typeof form1Fields]: z.ZodOptional<(typeof form1Fields)[K]>;
  };
  return z.object(partial).transform((b) => ({ ...toInput(b), productId: b.productID }));
}

/** Gateway create/edit members (gatewayName is the device name; the rest as for devices). */
export const gatewayFields = {
  productID: form1Fields.productID,
  gatewayName: form1Fields.deviceName,
  gatewayProtocol: codeField([1, 2, 3, 4, 5, 6, 7]),
  upLinkNetwork: codeField([1, 2, 3, 4, 5]).nullish(),
  upLinkProtocol: codeField([1, 2, 3, 4, 5, 6, 7]).nullish(),
  mac: z
    .string()
    .regex(/^[0-9A-Fa-f]{2}([:-]?[0-9A-Fa-f]{2}){5}$/, "a MAC address like 00:1A:2B:3C:4D:5E")
    .nullish(),
  authType: form1Fields.authType,
  blocked: form1Fields.blocked,
  deviceID: form1Fields.deviceID,
  deviceUsername: form1Fields.deviceUsername,
  token: form1Fields.token,
  location: json,
  manufacturer: text(50),
  serialNumber: text(100),
  softVersion: text(50),
  hardwareVersion: text(50),
  description: text(300),
  deviceConsoleIP: text(100),
  deviceConsoleUsername: text(100),
  deviceConsolePort: form1Fields.deviceConsolePort,
  certs: form1Fields.certs,
  channel: gatewayChannel,
};

const gatewayInput = <T extends { gatewayName?: string | undefined; productID?: string | undefined }>(b: T) => {
  const { gatewayName, ...rest } = b;
  return {
    ...toInput(rest),
    productId: b.productID,
    ...(gatewayName !== undefined ? { deviceName: gatewayName } : {}),
  };
};

/** Gateway create body. */
export const gatewayCreateBody = z
  .object(gatewayFields)
  .transform((b) => ({ ...gatewayInput(b), deviceName: b.gatewayName, productId: b.productID }));

/** Gateway edit body: every member optional; read-only members ignored. */
export const gatewayEditBody = z
  .object(
    Object.fromEntries(Object.entries(gatewayFields).map(([k, v]) => [k, (v as z.ZodType).optional()])) as {
      [K in keyof typeof gatewayFields]: z.ZodOptional<(typeof gatewayFields)[K]>;
    },
  )
  .transform(gatewayInput);
