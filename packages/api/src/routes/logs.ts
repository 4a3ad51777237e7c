import { z } from "zod";
import { listConnectLogs, listControlLogs, listDeviceEvents } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { connectLog, controlLog, event } from "../forms/logs.js";
import { listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import { readsFor } from "../middleware/read-your-writes.js";
import { listOf } from "../forms/common.js";
import { logRecords } from "../forms/logs.js";

const like = z.string().optional();

/**
 * Account-wide logs: connect logs, uplink messages and control logs with their `_like` filters. History: read from a
 * read replica when there are any (readsFor).
 */
export function logRoutes(deps: AppDeps, docs: ApiDocs) {
  return new ApiRouter(docs, "Logs")
    .get(
      "/device_connect_logs",
      {
        summary: "Connect logs of every device",
        response: listOf(logRecords.connect[deps.form]),
        query: listQuery({ deviceName_like: like, deviceID_like: like, IP_like: like }),
      },
      async (c, { query: q }) => {
        const r = await readsFor(deps, c, (db) =>
          listConnectLogs(db, c.get("caller"), pageFrom(q), {
            deviceNameLike: q.deviceName_like,
            deviceIdLike: q.deviceID_like,
            ipLike: q.IP_like,
          }),
        );
        return list(r, (l) => connectLog(l, c.get("view")));
      },
    )
    .get(
      "/device_events",
      {
        summary: "Uplink messages of every device",
        response: listOf(logRecords.event[deps.form]),
        query: listQuery({ deviceName_like: like, deviceID_like: like, topic_like: like }),
      },
      async (c, { query: q }) => {
        const r = await readsFor(deps, c, (db) =>
          listDeviceEvents(db, c.get("caller"), pageFrom(q), {
            deviceNameLike: q.deviceName_like,
            deviceIdLike: q.deviceID_like,
            topicLike: q.topic_like,
          }),
        );
        return list(r, (e) => event(e, c.get("view")));
      },
    )
    .get(
      "/device_control_logs",
      {
        summary: "Commands sent to every device",
        query: listQuery({ deviceName_like: like, deviceID_like: like }),
        response: listOf(logRecords.control),
      },
      async (c, { query: q }) => {
        const r = await readsFor(deps, c, (db) =>
          listControlLogs(db, c.get("caller"), pageFrom(q), {
            deviceNameLike: q.deviceName_like,
            deviceIdLike: q.deviceID_like,
          }),
        );
        return list(r, (l) => controlLog(l, c.get("view")));
      },
    ).app;
}
