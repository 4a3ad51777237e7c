import { z } from "zod";
import {
  createDevice,
  deleteDevices,
  getDevice,
  listConnectLogs,
  listControlLogs,
  listDeviceEvents,
  listDevices,
  updateDevice,
  type DeviceFilter,
} from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list, listOf } from "../forms/common.js";
import { device, deviceRecords } from "../forms/devices.js";
import { connectLog, controlLog, event, logRecords } from "../forms/logs.js";
import { idParam, idsFrom, idsQuery, intFilter, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import { readsFor } from "../middleware/read-your-writes.js";
import { deviceCreateBody, deviceEditBody, form2KindChange } from "./device-bodies.js";

const like = z.string().optional();
/**
 * The `deviceType_like` filter in the deployment's form, as the stored (Form 1) code: Form 1 sends 1 terminal,
 * 2 gateway (found by the export only: the Form 1 list holds no gateways), 3 smartphone; Form 2 sends 0, 1, 2.
 */
const deviceTypeFilter = (form: AppDeps["form"]) =>
  form === "1"
    ? z.enum(["1", "2", "3"], { message: "must be 1, 2 or 3" }).transform(Number).optional()
    : z
        .enum(["0", "1", "2"], { message: "must be 0, 1 or 2" })
        .transform((t) => Number(t) + 1)
        .optional();

/** Query of the device list (and of the device export): paging plus the filters, `deviceType_like` in `form`. */
export const deviceListQuery = (form: AppDeps["form"]) =>
  listQuery({
    gateway: intFilter,
    parentDevice: intFilter,
    deviceName_like: like,
    deviceID_like: like,
    deviceType_like: deviceTypeFilter(form),
    groupID: like,
    productID: like,
  });

/** The registry filter a validated device list query asks for. */
export const deviceFilterOf = (
  q: z.infer<ReturnType<typeof deviceListQuery>>,
  includeGateways: boolean,
): DeviceFilter => ({
  gateway: q.gateway,
  parentDevice: q.parentDevice,
  deviceNameLike: q.deviceName_like,
  deviceIdLike: q.deviceID_like,
  deviceType: q.deviceType_like,
  groupId: q.groupID,
  productId: q.productID,
  includeGateways,
});

/**
 * Devices: list (with filters), detail, create, edit, delete, and each device's logs. The list and the logs are read
 * from a read replica when there are any (readsFor); the detail, which edits start from, from the primary.
 */
export function deviceRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  const logsQuery = listQuery({});
  const records = deviceRecords[deps.form];
  return new ApiRouter(docs, "Devices")
    .get(
      "/devices",
      {
        summary: "List devices (Form 2 lists gateways too, as deviceType 1)",
        query: deviceListQuery(deps.form),
        response: listOf(records.list),
      },
      async (c, { query: q }) => {
        const r = await readsFor(deps, c, (db) =>
          listDevices(db, c.get("caller"), pageFrom(q), deviceFilterOf(q, deps.form === "2")),
        );
        return list(r, (d) => device(d, "list", c.get("view")));
      },
    )
    .get("/devices/:id", { summary: "Device detail", response: records.detail }, async (c) =>
      device(await getDevice(db, c.get("caller"), idParam(c)), "detail", c.get("view")),
    )
    .post(
      "/devices",
      {
        summary: "Create a device (every creation rule of the spec applies)",
        body: deviceCreateBody(deps.form),
        response: records.write,
      },
      async (c, { body }) => device(await createDevice(db, c.get("caller"), body), "write", c.get("view")),
    )
    .put(
      "/devices/:id",
      {
        summary: "Edit a device (the creation rules apply again; blocking or new credentials end its sessions)",
        body: deviceEditBody(deps.form),
        response: records.write,
      },
      async (c, { body }) => {
        const id = idParam(c);
        // Form 2 has no upLinkSystem: a change between terminal and smartphone sets it as Form 2 creates it.
        const kind =
          deps.form === "2" && body.deviceType !== undefined
            ? form2KindChange((await getDevice(db, c.get("caller"), id)).deviceType, body.deviceType)
            : {};
        const r = await updateDevice(db, c.get("caller"), id, { ...body, ...kind });
        if (r.revoke) deps.sessions.kick(r.device.id, r.revoke);
        return device(r.device, "write", c.get("view"));
      },
    )
    .delete(
      "/devices",
      {
        summary: "Delete devices, gateways too (REFERENCED_ERROR while a device has children or a gateway has devices)",
        query: idsQuery,
      },
      async (c, { query }) => {
        // Gateways are devices here as on GET and PUT /devices/{id}: deleted by the same rules as on /gateways.
        const deleted = await deleteDevices(db, c.get("caller"), idsFrom(query));
        for (const id of deleted) deps.sessions.kick(id, "device deleted");
      },
    )
    .get(
      "/devices/:id/events",
      { summary: "Uplink messages of a device", query: logsQuery, response: listOf(logRecords.event[deps.form]) },
      async (c, { query }) => {
        const r = await readsFor(deps, c, async (db) => {
          const d = await getDevice(db, c.get("caller"), idParam(c));
          return listDeviceEvents(db, c.get("caller"), pageFrom(query), { deviceIntId: d.id });
        });
        return list(r, (e) => event(e, c.get("view")));
      },
    )
    .get(
      "/devices/:id/connect_logs",
      { summary: "Connect logs of a device", query: logsQuery, response: listOf(logRecords.connect[deps.form]) },
      async (c, { query }) => {
        const r = await readsFor(deps, c, async (db) => {
          const d = await getDevice(db, c.get("caller"), idParam(c));
          return listConnectLogs(db, c.get("caller"), pageFrom(query), { deviceIntId: d.id });
        });
        return list(r, (l) => connectLog(l, c.get("view")));
      },
    )
    .get(
      "/devices/:id/control_logs",
      { summary: "Commands sent to a device", query: logsQuery, response: listOf(logRecords.control) },
      async (c, { query }) => {
        const r = await readsFor(deps, c, async (db) => {
          const d = await getDevice(db, c.get("caller"), idParam(c));
          return listControlLogs(db, c.get("caller"), pageFrom(query), { deviceIntId: d.id });
        });
        return list(r, (l) => controlLog(l, c.get("view")));
      },
    ).app;
}
