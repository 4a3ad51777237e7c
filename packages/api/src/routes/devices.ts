import { Hono } from "hono";
import { z } from "zod";
import { createDevice, getDevice, listConnectLogs, listControlLogs, listDeviceEvents, listDevices } from "@iot/registry";
import type { AppDeps, Env } from "../deps.js";
import * as form1 from "../forms/form1.js";
import { bodyOf, codeField, floatField, idParam, intField, intQuery, pageOf } from "../params.js";

/** Identifiers are topic- and URL-safe: letters, digits and `_ . : -`. */
const identifier = z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, "1 to 100 letters, digits or _ . : -");
const text = (max: number) => z.string().max(max).nullish();
const json = z.unknown().transform((v) => (v === undefined || v === null ? null : JSON.stringify(v)));

const createBody = z
  .object({
    productID: z.string().min(1, "required"),
    deviceName: z.string().trim().min(1, "required").max(50),
    deviceType: codeField([1, 3]).optional(),
    upLinkSystem: codeField([1, 2, 3]).nullish(),
    gateway: intField.nullish(),
    parentDevice: intField.nullish(),
    authType: codeField([1, 2]).optional(),
    deviceID: identifier.optional(),
    deviceUsername: identifier.optional(),
    token: z.string().min(8, "at least 8 characters").max(100).optional(),
    carrier: codeField([1, 2, 3, 4]).nullish(),
    physicalNetwork: codeField([1, 2, 3, 4, 5, 6]).nullish(),
    IMEI: text(50),
    IMSI: text(50),
    autoSub: codeField([0, 1]).nullish(),
    modBusIndex: intField.refine((v) => v >= 0 && v <= 255, "must be 0 to 255").nullish(),
    latitude: floatField.nullish(),
    longitude: floatField.nullish(),
    location: json,
    lora: json,
    manufacturer: text(50),
    serialNumber: text(100),
    softVersion: text(50),
    hardwareVersion: text(50),
    description: text(300),
    deviceConsoleIP: text(100),
    deviceConsoleUsername: text(100),
    deviceConsolePort: intField.refine((v) => v >= 0 && v <= 65535, "must be a port number").nullish(),
    metaData: json,
    scopes: json,
  })
  .transform((b) => ({
    ...b,
    productId: b.productID,
    deviceId: b.deviceID,
    imei: b.IMEI,
    imsi: b.IMSI,
    deviceConsoleIp: b.deviceConsoleIP,
  }));

/** Devices: list (with gateway/parentDevice filters), detail, create, and each device's logs. */
export function deviceRoutes(deps: AppDeps) {
  const db = deps.store.db;
  return new Hono<Env>()
    .get("/devices", async (c) => {
      const r = await listDevices(db, c.get("caller"), pageOf(c), { gateway: intQuery(c, "gateway"), parentDevice: intQuery(c, "parentDevice") });
      return c.json(form1.list(r, (d) => form1.device(d, "list")));
    })
    .get("/devices/:id", async (c) => c.json(form1.device(await getDevice(db, c.get("caller"), idParam(c)), "detail")))
    .post("/devices", async (c) => {
      const body = await bodyOf(c, createBody);
      return c.json(form1.device(await createDevice(db, c.get("caller"), body), "create"), 201);
    })
    .get("/devices/:id/events", async (c) => {
      const device = await getDevice(db, c.get("caller"), idParam(c));
      const r = await listDeviceEvents(db, c.get("caller"), pageOf(c), { deviceIntId: device.id });
      return c.json(form1.list(r, form1.event));
    })
    .get("/devices/:id/connect_logs", async (c) => {
      const device = await getDevice(db, c.get("caller"), idParam(c));
      const r = await listConnectLogs(db, c.get("caller"), pageOf(c), { deviceIntId: device.id });
      return c.json(form1.list(r, form1.connectLog));
    })
    .get("/devices/:id/control_logs", async (c) => {
      const device = await getDevice(db, c.get("caller"), idParam(c));
      const r = await listControlLogs(db, c.get("caller"), pageOf(c), { deviceIntId: device.id });
      return c.json(form1.list(r, form1.controlLog));
    });
}
