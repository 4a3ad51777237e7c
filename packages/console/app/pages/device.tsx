import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { api, type Rec } from "../api.ts";
import { BROKERS, FORM, deviceStatus } from "../deployment.ts";
import { t } from "../i18n.ts";
import { withConnectivity } from "../live-apply.ts";
import { useLiveEvents, useLiveState } from "../live.ts";
import { Link, navigate } from "../router.tsx";
import { CopyButton, ErrorBox, Section, StatusBadge, useInterval, useLoad } from "../ui.tsx";
import { CommandBox } from "./command-box.tsx";
import { connectionCommand } from "./connect-command.ts";
import { DeviceAccess } from "./device-access.tsx";
import { DeviceData } from "./device-data.tsx";
import { DeviceLogs } from "./device-logs.tsx";

/**
 * A device: status, credentials and how to connect, latest values and charts, a command box and its logs. The
 * stream's `online`/`offline` events of this device change its status in place; without a stream it is read again
 * every 3 s.
 */
export function DevicePage({ id }: Record<string, string>) {
  const { data: d, error, reload, set } = useLoad(() => api<Rec>("GET", `/devices/${id}`), [id]);
  const [actionError, setActionError] = useState<Error>();
  // Bumped after a command is sent, so the control logs list it.
  const [sentCount, setSentCount] = useState(0);
  const live = useLiveState();
  useInterval(reload, live === "open" ? 0 : 3000);
  useLiveEvents((e) => {
    if (e.type === "open") reload();
    if ((e.type === "online" || e.type === "offline") && d && e.deviceID === d.deviceID) {
      set((cur) => cur && withConnectivity(cur, e));
    }
  });
  if (!d) return error ? <ErrorBox error={error} /> : <p>{t("loading")}</p>;
  const status = deviceStatus(d);
  const command = connectionCommand(d, FORM === "2" ? d : BROKERS);
  return (
    <div>
      <h1>
        {d.deviceName} <StatusBadge {...status} />
      </h1>
      <div class="toolbar">
        <Link href={`/devices/${d.id}/edit`} class="button">
          {t("edit")}
        </Link>
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
            <dt>{t("description")}</dt>
            <dd data-testid="device-description">{d.description ?? ""}</dd>
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
      <CommandBox device={d} sent={() => setSentCount((n) => n + 1)} />
      <DeviceData device={d} />
      <DeviceLogs id={id!} deviceID={String(d.deviceID)} version={sentCount} />
      <DeviceAccess id={id!} />
      <p>
        <Link href="/devices">← {t("devices")}</Link>
      </p>
    </div>
  );
}
