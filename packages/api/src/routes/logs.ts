import { Hono } from "hono";
import { listConnectLogs, listControlLogs, listDeviceEvents } from "@iot/registry";
import type { AppDeps, Env } from "../deps.js";
import * as form1 from "../forms/form1.js";
import { pageOf } from "../params.js";

/** Account-wide logs: connect logs, uplink messages and control logs with their `_like` filters. */
export function logRoutes(deps: AppDeps) {
  const db = deps.store.db;
  return new Hono<Env>()
    .get("/device_connect_logs", async (c) => {
      const r = await listConnectLogs(db, c.get("caller"), pageOf(c), {
        deviceNameLike: c.req.query("deviceName_like"),
        deviceIdLike: c.req.query("deviceID_like"),
        ipLike: c.req.query("IP_like"),
      });
      return c.json(form1.list(r, form1.connectLog));
    })
    .get("/device_events", async (c) => {
      const r = await listDeviceEvents(db, c.get("caller"), pageOf(c), {
        deviceNameLike: c.req.query("deviceName_like"),
        deviceIdLike: c.req.query("deviceID_like"),
        topicLike: c.req.query("topic_like"),
      });
      return c.json(form1.list(r, form1.event));
    })
    .get("/device_control_logs", async (c) => {
      const r = await listControlLogs(db, c.get("caller"), pageOf(c), {
        deviceNameLike: c.req.query("deviceName_like"),
        deviceIdLike: c.req.query("deviceID_like"),
      });
      return c.json(form1.list(r, form1.controlLog));
    });
}
