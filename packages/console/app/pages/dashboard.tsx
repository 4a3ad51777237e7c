import { useState } from "preact/hooks";
import { api, type Page, type Rec } from "../api.ts";
import { FORM } from "../deployment.ts";
import { t } from "../i18n.ts";
import { useLiveEvents, useLiveState, type LiveEvent } from "../live.ts";
import { ErrorBox, Section, Table, useInterval, useLoad } from "../ui.tsx";

/** Protocol names by cloudProtocol code, for protocols no label came with. */
const PROTOCOLS: Record<number, string> = {
  1: "MQTT",
  2: "CoAP",
  3: "LwM2M",
  4: "LoRa",
  5: "HTTP",
  6: "WebSocket",
  7: "Modbus",
};

/** Most events read to count the uplinks of the last minute (the tile shows "≥ 1000" beyond). */
const UPLINK_WINDOW_MAX = 1000;

/** `YYYY-MM-DD HH:MM:SS` (UTC) → epoch ms. */
const apiTimeToMs = (s: string) => Date.parse(`${s.replace(" ", "T")}Z`);

/** Per protocol: devices from the products' device counts, online ones from the adapters' connected devices. */
async function loadDashboard() {
  const [health, products, alerts, events] = await Promise.all([
    api<Rec>("GET", "/health"),
    api<Page<Rec>>("GET", "/products?_limit=1000"),
    api<Page<Rec>>("GET", "/history_alerts?status=open&_limit=1"),
    api<Page<Rec>>("GET", `/device_events?_limit=${UPLINK_WINDOW_MAX}`),
  ]);
  // Uplinks of the last minute: the newest events (the list is newest first) received less than 60 s ago.
  const since = Date.now() - 60_000;
  const uplinkTimes = events.items.map((e) => apiTimeToMs(String(e.createAt ?? e.msgTime))).filter((ms) => ms >= since);
  const productProtocol: Record<string, number> = {};
  const rows = new Map<number, { protocol: number; label: string; total: number; online: number }>();
  const row = (p: number, label?: string) => {
    let r = rows.get(p);
    if (!r) rows.set(p, (r = { protocol: p, label: label || PROTOCOLS[p] || String(p), total: 0, online: 0 }));
    return r;
  };
  for (const p of products.items) {
    // Form 2 products have no protocol (every one is MQTT) and list their devices' ids.
    const protocol = FORM === "2" ? 1 : Number(p.cloudProtocol);
    productProtocol[String(p.productID)] = protocol;
    const count = FORM === "2" ? (p.devices?.length ?? 0) : Number(p.deviceCount ?? 0);
    row(protocol, p.cloudProtocolLabel).total += count;
  }
  for (const a of health.adapters ?? []) row(Number(a.protocol), a.protocolLabel).online += Number(a.connectedDevices);
  return {
    health,
    uplinkTimes,
    /** Whether the events read were all of the last minute's (the count is then a lower bound). */
    uplinksCapped: uplinkTimes.length >= UPLINK_WINDOW_MAX,
    productProtocol,
    alerts: alerts.meta.count,
    protocols: [...rows.values()].sort((a, b) => a.protocol - b.protocol),
  };
}

type Data = Awaited<ReturnType<typeof loadDashboard>>;

/** The dashboard's figures after one live event: a device on or off line, an uplink, an alert opened or closed. */
function applyEvent(d: Data, e: LiveEvent): Data {
  if (e.type === "uplink")
    return { ...d, uplinkTimes: [...d.uplinkTimes.filter((ms) => ms >= Date.now() - 60_000), e.time] };
  if (e.type === "alert_opened") return { ...d, alerts: d.alerts + 1 };
  if (e.type === "alert_closed") return { ...d, alerts: Math.max(0, d.alerts - 1) };
  if (e.type === "online" || e.type === "offline") {
    const protocol = d.productProtocol[String(e.productID)];
    const step = e.type === "online" ? 1 : -1;
    const protocols = d.protocols.map((r) =>
      r.protocol === protocol ? { ...r, online: Math.max(0, r.online + step) } : r,
    );
    return { ...d, protocols };
  }
  return d;
}

/**
 * The fleet at a glance. The stream's events change the figures in place (online counts, uplinks of the last
 * minute, open alerts); everything is read again every minute to stay exact (every 5 s without a stream).
 */
export function Dashboard() {
  const { data, error, reload, set } = useLoad(loadDashboard, []);
  const live = useLiveState();
  useInterval(reload, live === "open" ? 60_000 : 5000);
  // The last minute moves on without any event: count again every second.
  const [, tick] = useState(0);
  useInterval(() => tick((n) => n + 1), 1000);
  useLiveEvents((e) => {
    if (e.type === "open") reload();
    else set((d) => d && applyEvent(d, e));
  });
  const uplinks = data ? data.uplinkTimes.filter((ms) => ms >= Date.now() - 60_000).length : 0;
  const totals = (data?.protocols ?? []).reduce((s, r) => ({ total: s.total + r.total, online: s.online + r.online }), {
    total: 0,
    online: 0,
  });
  return (
    <div>
      <h1>{t("dashboard")}</h1>
      <ErrorBox error={error} />
      <div class="tiles">
        <div class="tile" data-testid="tile-online">
          <b>{data ? totals.online : "…"}</b>
          <span>{t("online")}</span>
        </div>
        <div class="tile">
          <b>{data ? Math.max(0, totals.total - totals.online) : "…"}</b>
          <span>{t("offline")}</span>
        </div>
        <div class="tile" data-testid="tile-total">
          <b>{data ? totals.total : "…"}</b>
          <span>{t("total")}</span>
        </div>
        <div class="tile" data-testid="tile-uplinks">
          <b>{data ? (data.uplinksCapped ? `≥ ${uplinks}` : uplinks) : "…"}</b>
          <span>{t("uplinksPerMinute")}</span>
        </div>
        <div class="tile" data-testid="tile-alerts">
          <b>{data ? data.alerts : "…"}</b>
          <span>{t("openAlerts")}</span>
        </div>
      </div>
      <Section title={t("devices")}>
        <Table
          testId="protocol-table"
          rows={data?.protocols}
          columns={[
            { label: t("protocol"), cell: (r) => r.label },
            { label: t("online"), cell: (r) => r.online },
            { label: t("offline"), cell: (r) => Math.max(0, r.total - r.online) },
            { label: t("total"), cell: (r) => r.total },
          ]}
        />
      </Section>
      <Section title={t("adapters")}>
        <p class="muted">
          {t("database")}: {data?.health.database ?? "…"} · {t("uptime")}: {data?.health.uptimeSeconds ?? "…"} s
        </p>
        <Table
          testId="adapter-table"
          rows={data?.health.adapters}
          columns={[
            { label: t("protocol"), cell: (a) => a.protocolLabel ?? a.protocol },
            { label: t("instance"), cell: (a) => a.instance },
            { label: t("version"), cell: (a) => a.version },
            { label: t("attachedAt"), cell: (a) => a.attachedAt },
            { label: t("connectedDevices"), cell: (a) => a.connectedDevices },
          ]}
        />
      </Section>
    </div>
  );
}
