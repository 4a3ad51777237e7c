import { deleteHistoryAlerts, listGroupControlLogs, listHistoryAlerts } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { groupControlLog, historyAlert } from "../forms/alerts.js";
import { list } from "../forms/common.js";
import { idParam, idsFrom, idsQuery, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";

/** Historical alerts (list, delete) and the commands sent to a group. */
export function alertRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  return new ApiRouter(docs, "Logs")
    .get(
      "/history_alerts",
      { summary: "Historical alerts of every device", query: listQuery({}) },
      async (c, { query }) =>
        list(await listHistoryAlerts(db, c.get("caller"), pageFrom(query)), (a) => historyAlert(a, c.get("view"))),
    )
    .delete("/history_alerts", { summary: "Delete historical alerts", query: idsQuery }, async (c, { query }) => {
      await deleteHistoryAlerts(db, c.get("caller"), idsFrom(query));
    })
    .get(
      "/groups/:id/control_logs",
      { summary: "Commands sent to a group", query: listQuery({}) },
      async (c, { query }) =>
        list(await listGroupControlLogs(db, c.get("caller"), idParam(c), pageFrom(query)), (l) =>
          groupControlLog(l, c.get("view")),
        ),
    ).app;
}
