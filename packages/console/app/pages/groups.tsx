import { useState } from "preact/hooks";
import { api, type Page, type Rec } from "../api.ts";
import { ChildList } from "../child-list.tsx";
import { FORM, deviceStatus } from "../deployment.ts";
import { RecordForm } from "../form.tsx";
import { t } from "../i18n.ts";
import { useLive } from "../live.ts";
import { GROUP_COMMAND } from "../resources/schedules.tsx";
import { Link } from "../router.tsx";
import { followTask } from "../task.ts";
import { ErrorBox, Section, StatusBadge, Table, useLoad } from "../ui.tsx";

/** A group: its members (added and removed), a group command followed as a task, and its control logs. */
export function GroupPage({ id }: Record<string, string>) {
  const group = useLoad(() => api<Rec>("GET", `/groups/${id}`), [id]);
  const logs = useLoad(() => api<Page<Rec>>("GET", `/groups/${id}/control_logs?_limit=10`), [id]);
  // A member's command result changes a control log's status: read them again (at most every 300 ms).
  useLive(logs.reload, (e) => e.type === "command_result");
  const [task, setTask] = useState<Rec | null>(null);
  const g = group.data;
  return (
    <div>
      <h1>
        {t("groups")}: {g?.groupName ?? "…"}
      </h1>
      <ErrorBox error={group.error} />
      <div class="toolbar">
        <Link href={`/groups/${id}/edit`} class="button">
          {t("edit")}
        </Link>
      </div>
      {g ? (
        <Section title={t("details")}>
          <dl class="props">
            <dt>groupID</dt>
            <dd>
              <code>{g.groupID}</code>
            </dd>
            <dt>{t("product")}</dt>
            <dd>{g.productName ?? g.productID}</dd>
            <dt>{t("description")}</dt>
            <dd data-testid="group-description">{g.description}</dd>
          </dl>
        </Section>
      ) : null}
      <ChildList
        spec={{
          title: t("members"),
          api: `/groups/${id}/devices`,
          testId: "member-table",
          initialFilters: { _limit: "100" },
          refreshMs: 5000,
          liveTypes: ["online", "offline"],
          columns: [
            { label: t("name"), cell: (d) => <Link href={`/devices/${d.id}`}>{d.deviceName}</Link> },
            { label: "deviceID", cell: (d) => <code>{d.deviceID}</code> },
            { label: t("status"), cell: (d) => <StatusBadge {...deviceStatus(d)} /> },
          ],
        }}
        form={{
          title: t("addMembers"),
          testId: "member-form",
          fields: [
            {
              name: "ids",
              label: t("devices"),
              kind: "multiselect",
              optionsFrom: { path: `/broker_select/groups/${id}/not_joined_devices`, value: "value", label: "label" },
            },
          ],
        }}
      />
      {g ? (
        <section class="card">
          <RecordForm
            inline
            mode="create"
            title={t("groupPublish")}
            submitLabel={t("send")}
            testId="group-publish-form"
            fields={GROUP_COMMAND()}
            initial={{ payload: "", needAck: 0 }}
            extra={FORM === "1" ? { groupID: g.groupID, groupIntID: g.id } : { groupID: g.groupID }}
            submit={async ({ body }) => {
              const r = await api<Rec>("POST", "/group_publish", body);
              if (r?.statusUrl) await followTask(String(r.statusUrl), setTask, 1000);
              logs.reload();
            }}
          />
          {task ? (
            <p data-testid="group-task" data-status={task.status}>
              {t("progress")}: {task.progress}% · {task.message ?? ""}
            </p>
          ) : null}
        </section>
      ) : null}
      <Section title={t("controlLogs")}>
        <Table
          testId="group-control-logs"
          rows={logs.data?.items}
          columns={[
            { label: t("time"), cell: (l) => l.createAt },
            { label: t("payload"), cell: (l) => <code class="payload">{l.payload}</code> },
            { label: t("publishStatus"), cell: (l) => l.publishStatusLabel ?? l.publishStatus },
          ]}
        />
      </Section>
    </div>
  );
}
