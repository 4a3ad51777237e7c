import { api, type Page, type Rec } from "../api.ts";
import { connectStatus } from "../deployment.ts";
import { t } from "../i18n.ts";
import { connectLogOf, prepend, publishStatusLabel, uplinkOf } from "../live-apply.ts";
import { useLiveEvents, useLiveState } from "../live.ts";
import { ErrorBox, Section, StatusBadge, Table, useInterval, useLoad } from "../ui.tsx";

/**
 * The device's events, connect logs, control logs and alerts (the 10 newest of each). The stream's events of this
 * device are added in place (an uplink, a connection change, a command's new publishStatus); alerts are read again
 * when one opens or closes. Without a stream everything is read again every 5 s.
 */
export function DeviceLogs({ id, deviceID, version }: { id: string; deviceID: string; version: number }) {
  const logs = useLoad(async () => {
    const page = (kind: string) => api<Page<Rec>>("GET", `/devices/${id}/${kind}?_limit=10`).then((r) => r.items);
    const [events, connects, controls] = await Promise.all([
      page("events"),
      page("connect_logs"),
      page("control_logs"),
    ]);
    return { events, connects, controls };
  }, [id, version]);
  const alerts = useLoad(
    () => api<Page<Rec>>("GET", `/history_alerts?deviceIntID=${id}&_limit=10`).then((r) => r.items),
    [id],
  );
  const live = useLiveState();
  useInterval(logs.reload, live === "open" ? 0 : 5000);
  useInterval(alerts.reload, live === "open" ? 0 : 5000);
  useLiveEvents((e) => {
    if (e.type === "open") logs.reload();
    if (e.deviceID !== deviceID) return;
    // Each change applies to the newest state, not to the data of the last render: events that arrive together (a
    // device's online, uplink and offline before the page renders again) would otherwise undo each other.
    if (e.type === "uplink") logs.set((d) => d && { ...d, events: prepend(d.events, uplinkOf(e)) });
    if (e.type === "online" || e.type === "offline")
      logs.set((d) => d && { ...d, connects: prepend(d.connects, connectLogOf(e)) });
    if (e.type === "command_result") {
      const status = String(e.data.publishStatus);
      logs.set(
        (d) =>
          d && {
            ...d,
            controls: d.controls.map((l) =>
              l.id === Number(e.data.controlLogID)
                ? { ...l, publishStatus: status, publishStatusLabel: publishStatusLabel(status) }
                : l,
            ),
          },
      );
    }
    if (e.type === "alert_opened" || e.type === "alert_closed") alerts.reload();
  });
  return (
    <>
      <ErrorBox error={logs.error ?? alerts.error} />
      <Section title={t("events")}>
        <Table
          testId="events"
          rows={logs.data?.events}
          columns={[
            { label: t("time"), cell: (e) => e.msgTime ?? e.createAt },
            { label: t("topic"), cell: (e) => <code>{e.topic}</code> },
            { label: t("payload"), cell: (e) => <code class="payload">{e.payload}</code> },
          ]}
        />
      </Section>
      <div class="grid2">
        <Section title={t("connectLogs")}>
          <Table
            testId="connect-logs"
            rows={logs.data?.connects}
            columns={[
              { label: t("time"), cell: (l) => l.createAt },
              { label: t("status"), cell: (l) => <StatusBadge {...connectStatus(l)} /> },
              { label: t("ip"), cell: (l) => l.IP },
            ]}
          />
        </Section>
        <Section title={t("controlLogs")}>
          <Table
            testId="control-logs"
            rows={logs.data?.controls}
            columns={[
              { label: t("time"), cell: (l) => l.createAt },
              { label: t("topic"), cell: (l) => <code>{l.topic ?? "inbox"}</code> },
              { label: t("payload"), cell: (l) => <code class="payload">{l.payload}</code> },
              {
                label: t("publishStatus"),
                cell: (l) => <span data-log-status={l.publishStatus}>{l.publishStatusLabel ?? l.publishStatus}</span>,
              },
            ]}
          />
        </Section>
      </div>
      <Section title={t("alerts")}>
        <Table
          testId="device-alerts"
          rows={alerts.data}
          columns={[
            { label: t("name"), cell: (a) => a.alertName },
            { label: t("severity"), cell: (a) => a.alertSeverityLabel ?? a.alertSeverity },
            { label: "", cell: (a) => a.alertContent },
            { label: t("startTime"), cell: (a) => a.startTime },
            { label: t("endTime"), cell: (a) => a.endTime ?? "—" },
          ]}
        />
      </Section>
    </>
  );
}
