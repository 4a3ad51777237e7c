import { Fragment } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, qs, type Page, type Rec } from "../api.ts";
import { SeriesChart } from "../chart.tsx";
import { BROKERS, FORM, connectStatus, deviceStatus } from "../deployment.ts";
import { t } from "../i18n.ts";
import { useLive } from "../live.ts";
import { Link, navigate } from "../router.tsx";
import { CopyButton, ErrorBox, Field, Section, StatusBadge, Table, errorsOf, useInterval, useLoad } from "../ui.tsx";
import { connectionCommand } from "./connect-command.ts";

/** A device: status, credentials and how to connect, latest values and charts, a command box and its logs. */
export function DevicePage({ id }: Record<string, string>) {
  const { data: d, error, reload } = useLoad(() => api<Rec>("GET", `/devices/${id}`), [id]);
  const [actionError, setActionError] = useState<Error>();
  useInterval(reload, 3000);
  useLive(reload);
  if (!d) return error ? <ErrorBox error={error} /> : <p>{t("loading")}</p>;
  const status = deviceStatus(d);
  const command = connectionCommand(d, FORM === "2" ? d : BROKERS);
  return (
    <div>
      <h1>
        {d.deviceName} <StatusBadge {...status} />
      </h1>
      <div class="toolbar">
        <button
          data-testid="block"
          onClick={() =>
            void api("PUT", `/devices/${d.id}`, { blocked: d.blocked ? 0 : 1 }).then(reload, setActionError)
          }
        >
          {d.blocked ? t("unblock") : t("block")}
        </button>
        <button
          data-testid="delete"
          onClick={() => {
            if (!confirm(t("confirmDelete"))) return;
            void api("DELETE", `/devices?ids=${d.id}`).then(() => navigate("/devices"), setActionError);
          }}
        >
          {t("delete")}
        </button>
      </div>
      <ErrorBox error={actionError} />
      <ErrorBox error={error} />
      <div class="grid2">
        <Section title={t("details")}>
          <dl class="props">
            <dt>{t("product")}</dt>
            <dd>{d.productName}</dd>
            {FORM === "1" ? (
              <>
                <dt>{t("protocol")}</dt>
                <dd>{d.cloudProtocolLabel}</dd>
              </>
            ) : null}
            <dt>{t("deviceType")}</dt>
            <dd>{d.deviceTypeLabel}</dd>
            <dt>{t("status")}</dt>
            <dd data-testid="device-status">{status.label || String(status.code)}</dd>
            <dt>{t("ip")}</dt>
            <dd>{d.clientIP ?? "—"}</dd>
            <dt>connectedAt</dt>
            <dd>{d.connectedAt ?? "—"}</dd>
            <dt>{t("blocked")}</dt>
            <dd>{d.blocked ? "1" : "0"}</dd>
            <dt>{t("createAt")}</dt>
            <dd>{d.createAt}</dd>
          </dl>
        </Section>
        <Section title={t("credentials")}>
          <dl class="props">
            {(["deviceID", "deviceUsername", "token"] as const).map((k) => (
              <Fragment key={k}>
                <dt>{k}</dt>
                <dd>
                  <code data-cred={k}>{d[k] ?? "—"}</code> {d[k] ? <CopyButton text={String(d[k])} name={k} /> : null}
                </dd>
              </Fragment>
            ))}
            <dt>{t("authType")}</dt>
            <dd>{d.authTypeLabel ?? d.authType}</dd>
          </dl>
          {command ? (
            <div class="command">
              <h3>
                {t("connectCommand")} <CopyButton text={command} name="command" />
              </h3>
              <pre data-testid="connect-command">{command}</pre>
            </div>
          ) : null}
        </Section>
      </div>
      <CommandBox device={d} />
      <DeviceData deviceID={d.deviceID} />
      <DeviceLogs id={id!} />
    </div>
  );
}

/** Sends a command (`POST /device_publish`) and follows its control log until the device has it or it failed. */
function CommandBox({ device }: { device: Rec }) {
  const [topic, setTopic] = useState("");
  const [payload, setPayload] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [sent, setSent] = useState<{ logId: number; status: string; label: string } | null>(null);
  const following = sent !== null && sent.status === "1";
  useEffect(() => {
    if (!following) return;
    const started = Date.now();
    const timer = setInterval(() => {
      void api<Page<Rec>>("GET", `/devices/${device.id}/control_logs?_limit=20`).then((r) => {
        const log = r.items.find((l) => l.id === sent.logId);
        if (log) setSent({ ...sent, status: String(log.publishStatus), label: String(log.publishStatusLabel ?? "") });
      });
      if (Date.now() - started > 120_000) clearInterval(timer);
    }, 1000);
    return () => clearInterval(timer);
  }, [following, sent?.logId]);
  const send = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    try {
      const body: Rec = { deviceID: device.deviceID, payload };
      if (FORM === "1") body.deviceIntID = device.id;
      if (topic) body.topic = topic;
      const r = await api<Rec>("POST", "/device_publish", body);
      setSent({ logId: Number(r.controlLogIntID), status: String(r.publishStatus), label: "" });
    } catch (err) {
      setErrors(errorsOf(err));
    }
  };
  return (
    <Section title={t("command")}>
      <form class="inline" onSubmit={(e) => void send(e)} data-testid="command-form">
        <Field label={`${t("topic")} (inbox)`} name="topic" errors={errors}>
          <input name="topic" value={topic} placeholder="inbox" onInput={(e) => setTopic(e.currentTarget.value)} />
        </Field>
        <Field label={t("payload")} name="payload" errors={errors}>
          <input name="payload" value={payload} onInput={(e) => setPayload(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="primary">
          {t("send")}
        </button>
      </form>
      {errors._form ? <ErrorBox error={new Error(errors._form)} /> : null}
      {sent ? (
        <p>
          {t("publishStatus")}:{" "}
          <span class={`badge ps${sent.status}`} data-testid="publish-status" data-code={sent.status}>
            {sent.label || sent.status}
          </span>
        </p>
      ) : null}
    </Section>
  );
}

/** Seconds in each range the API's `time_unit` names. */
const SPAN = { hour: 3600, day: 86_400, week: 604_800 };

const RANGES = [
  ["hour", "lastHour"],
  ["day", "lastDay"],
  ["week", "lastWeek"],
] as const;

/** Latest value per data point and a chart of each over the chosen range (`GET /original_data`), every 5 s. */
function DeviceData({ deviceID }: { deviceID: string }) {
  const [unit, setUnit] = useState<"hour" | "day" | "week">("hour");
  const { data, error, reload } = useLoad(
    () => api<Rec[]>("GET", `/original_data${qs({ deviceID, time_unit: unit })}`),
    [deviceID, unit],
  );
  useInterval(reload, 5000);
  useLive(reload);
  const series = (data ?? []).filter((s) => s.originalData?.time?.length > 0);
  const to = Math.ceil(Date.now() / 1000);
  return (
    <Section
      title={t("latestValues")}
      actions={
        <select name="range" value={unit} onChange={(e) => setUnit(e.currentTarget.value as typeof unit)}>
          {RANGES.map(([u, key]) => (
            <option key={u} value={u}>
              {t(key)}
            </option>
          ))}
        </select>
      }
    >
      <ErrorBox error={error} />
      <Table
        testId="latest-values"
        rows={data ? series : undefined}
        columns={[
          { label: t("name"), cell: (s) => s.dataPointName },
          {
            label: t("value"),
            cell: (s) => <b data-latest={s.dataPointName}>{String(s.originalData.value.at(-1))}</b>,
          },
          { label: t("time"), cell: (s) => s.originalData.time.at(-1) },
        ]}
      />
      <div class="charts">
        {series.map((s) => (
          <div key={s.dataPointIntID}>
            <h3>{s.dataPointName}</h3>
            <SeriesChart
              name={s.dataPointName}
              time={s.originalData.time}
              value={s.originalData.value}
              from={to - SPAN[unit]}
              to={to}
            />
          </div>
        ))}
      </div>
    </Section>
  );
}

/** The device's events, connect logs and control logs (first 10 of each, newest first), every 5 s. */
function DeviceLogs({ id }: { id: string }) {
  const { data, error, reload } = useLoad(async () => {
    const logs = (kind: string) => api<Page<Rec>>("GET", `/devices/${id}/${kind}?_limit=10`);
    const [events, connects, controls, alerts] = await Promise.all([
      logs("events"),
      logs("connect_logs"),
      logs("control_logs"),
      api<Page<Rec>>("GET", `/history_alerts?deviceIntID=${id}&_limit=10`),
    ]);
    return { events: events.items, connects: connects.items, controls: controls.items, alerts: alerts.items };
  }, [id]);
  useInterval(reload, 5000);
  useLive(reload);
  return (
    <>
      <ErrorBox error={error} />
      <Section title={t("events")}>
        <Table
          testId="events"
          rows={data?.events}
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
            rows={data?.connects}
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
            rows={data?.controls}
            columns={[
              { label: t("time"), cell: (l) => l.createAt },
              { label: t("topic"), cell: (l) => <code>{l.topic ?? "inbox"}</code> },
              { label: t("payload"), cell: (l) => <code class="payload">{l.payload}</code> },
              { label: t("publishStatus"), cell: (l) => l.publishStatusLabel ?? l.publishStatus },
            ]}
          />
        </Section>
      </div>
      <Section title={t("alerts")}>
        <Table
          testId="device-alerts"
          rows={data?.alerts}
          columns={[
            { label: t("name"), cell: (a) => a.alertName },
            { label: t("severity"), cell: (a) => a.alertSeverityLabel ?? a.alertSeverity },
            { label: "", cell: (a) => a.alertContent },
            { label: t("startTime"), cell: (a) => a.startTime },
            { label: t("endTime"), cell: (a) => a.endTime ?? "—" },
          ]}
        />
      </Section>
      <p>
        <Link href="/devices">← {t("devices")}</Link>
      </p>
    </>
  );
}
