import { z } from "zod";
import { deleteHistoryAlerts, listGroupControlLogs, listHistoryAlerts } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { groupControlLog, historyAlert } from "../forms/alerts.js";
import { list } from "../forms/common.js";
import { idParam, idsFrom, idsQuery, intFilter, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import { listOf } from "../forms/common.js";
import { groupControlLogRecord, historyAlertRecord } from "../forms/alerts.js";

/** `status`: open alerts (no endTime yet) or closed ones. */
const status = z.enum(["open", "closed"], { error: "must be open or closed" }).optional();

/**
 * Historical alerts (list, delete) and the commands sent to a group. `GET /history_alerts` filters by `deviceID`
 * and/or `deviceIntID` (both must match) and `status` (open or closed).
 */
export function alertRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  return new ApiRouter(docs, "Logs")
    .get(
      "/history_alerts",
      {
        summary: "Historical alerts, optionally of one device (deviceID or deviceIntID) and open or closed",
        query: listQuery({ deviceID: z.string().optional(), deviceIntID: intFilter, status }),
        response: listOf(historyAlertRecord),
      },
      async (c, { query: q }) => {
        const filter = { deviceId: q.deviceID, deviceIntId: q.deviceIntID, status: q.status };
        const r = await listHistoryAlerts(db, c.get("caller"), pageFrom(q), filter);
        return list(r, (a) => historyAlert(a, c.get("view")));
      },
    )
    .delete("/history_alerts", { summary: "Delete historical alerts", query: idsQuery }, async (c, { query }) => {
      await deleteHistoryAlerts(db, c.get("caller"), idsFrom(query));
    })
    .get(
      "/groups/:id/control_logs",
      { summary: "Commands sent to a group", query: listQuery({}), response: listOf(groupControlLogRecord) },
      async (c, { query }) =>
        list(await listGroupControlLogs(db, c.get("caller"), idParam(c), pageFrom(query)), (l) =>
          groupControlLog(l, c.get("view")),
        ),
    ).app;
}
