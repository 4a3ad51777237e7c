import { t } from "../i18n.ts";
import type { Resource } from "../resource.tsx";
import { Link } from "../router.tsx";

/** History alerts, open or closed, by device; handled by deleting them (the API has no other change of an alert). */
export const alerts: Resource = {
  route: "/alerts",
  api: "/history_alerts",
  testId: "alert",
  title: () => t("alerts"),
  newLabel: () => t("alerts"),
  editLabel: () => t("alerts"),
  creatable: false,
  editable: false,
  list: () => ({
    refreshMs: 10_000,
    liveTypes: ["alert_opened", "alert_closed"],
    initialFilters: { status: "open" },
    filters: [
      {
        name: "status",
        label: t("status"),
        kind: "select",
        options: [
          ["open", t("open")],
          ["closed", t("closed")],
        ],
      },
      { name: "deviceID", label: "deviceID" },
    ],
    columns: [
      { label: t("name"), cell: (a) => a.alertName },
      { label: t("severity"), cell: (a) => a.alertSeverityLabel ?? a.alertSeverity },
      {
        label: t("devices"),
        cell: (a) =>
          a.deviceIntID ? <Link href={`/devices/${a.deviceIntID}`}>{a.deviceName ?? a.deviceID}</Link> : a.deviceID,
      },
      { label: "", cell: (a) => a.alertContent },
      { label: "×", cell: (a) => a.alertTimes },
      { label: t("startTime"), cell: (a) => a.startTime },
      { label: t("endTime"), cell: (a) => a.endTime ?? "—" },
    ],
  }),
  fields: () => [],
  initial: () => ({}),
};
