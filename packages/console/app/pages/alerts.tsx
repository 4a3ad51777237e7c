import { api, type Page, type Rec } from "../api.ts";
import { t } from "../i18n.ts";
import { useListState } from "../list-state.ts";
import { ErrorBox, Pager, Table, useInterval, useLoad } from "../ui.tsx";

/** Historical alerts, open or closed, by device; refreshed every 10 s. */
export function AlertList() {
  const list = useListState({ status: "open" });
  const { data, error, reload } = useLoad(() => api<Page<Rec>>("GET", `/history_alerts${list.query}`), [list.query]);
  useInterval(reload, 10_000);
  return (
    <div>
      <h1>{t("alerts")}</h1>
      <div class="toolbar">
        <select
          name="status"
          value={list.filters.status ?? ""}
          onChange={(e) => list.setFilter("status", e.currentTarget.value)}
        >
          <option value="">{t("all")}</option>
          <option value="open">{t("open")}</option>
          <option value="closed">{t("closed")}</option>
        </select>
        <input
          type="search"
          name="deviceID"
          placeholder="deviceID"
          value={list.filters.deviceID ?? ""}
          onInput={(e) => list.setFilter("deviceID", e.currentTarget.value)}
        />
      </div>
      <ErrorBox error={error} />
      <Table
        testId="alert-table"
        rows={data?.items}
        columns={[
          { label: t("name"), cell: (a) => a.alertName },
          { label: t("severity"), cell: (a) => a.alertSeverityLabel ?? a.alertSeverity },
          { label: t("devices"), cell: (a) => a.deviceName ?? a.deviceID },
          { label: "", cell: (a) => a.alertContent },
          { label: "×", cell: (a) => a.alertTimes },
          { label: t("startTime"), cell: (a) => a.startTime },
          { label: t("endTime"), cell: (a) => a.endTime ?? "—" },
        ]}
      />
      <Pager meta={data?.meta} onPage={list.setPage} />
    </div>
  );
}
