import { useEffect, useRef, useState } from "preact/hooks";
import { api, type Page, type Rec } from "../api.ts";
import { FORM } from "../deployment.ts";
import { t } from "../i18n.ts";
import { publishStatusLabel } from "../live-apply.ts";
import { useLiveEvents, useLiveState } from "../live.ts";
import { RecordForm } from "../form.tsx";
import { Section } from "../ui.tsx";

/**
 * Sends a command (`POST /device_publish`) and shows its publishStatus as it changes: from the stream's
 * `command_result` event naming its control log; only without a stream does it read the control logs every second.
 */
export function CommandBox({ device, sent: onSent }: { device: Rec; sent: () => void }) {
  const [sent, setSent] = useState<{ logId: number; status: string; label: string } | null>(null);
  // Results that arrive before the POST's answer (a quick device) are kept until it comes.
  const early = useRef(new Map<number, string>());
  const live = useLiveState();
  useLiveEvents((e) => {
    if (e.type !== "command_result") return;
    const logId = Number(e.data.controlLogID);
    const status = String(e.data.publishStatus);
    early.current.set(logId, status);
    setSent((s) => (s && s.logId === logId ? { logId, status, label: publishStatusLabel(status) } : s));
  });
  const polling = live !== "open" && sent !== null && sent.status === "1";
  useEffect(() => {
    if (!polling) return;
    const started = Date.now();
    const timer = setInterval(() => {
      void api<Page<Rec>>("GET", `/devices/${device.id}/control_logs?_limit=20`).then((r) => {
        const log = r.items.find((l) => l.id === sent.logId);
        if (log) setSent({ ...sent, status: String(log.publishStatus), label: String(log.publishStatusLabel ?? "") });
      });
      if (Date.now() - started > 120_000) clearInterval(timer);
    }, 1000);
    return () => clearInterval(timer);
  }, [polling, sent?.logId]);
  return (
    <Section title={t("command")}>
      <RecordForm
        inline
        mode="create"
        title=""
        submitLabel={t("send")}
        testId="command-form"
        fields={[
          { name: "topic", label: `${t("topic")} (inbox)`, placeholder: "inbox" },
          { name: "payload", label: t("payload") },
        ]}
        initial={{ payload: "" }}
        extra={FORM === "1" ? { deviceID: device.deviceID, deviceIntID: device.id } : { deviceID: device.deviceID }}
        submit={async ({ body }) => {
          // An empty topic means the device's own (inbox): left out.
          if (!body.topic) delete body.topic;
          const r = await api<Rec>("POST", "/device_publish", body);
          const logId = Number(r.controlLogIntID);
          const status = early.current.get(logId) ?? String(r.publishStatus);
          setSent({ logId, status, label: publishStatusLabel(status) });
          onSent();
        }}
      />
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
