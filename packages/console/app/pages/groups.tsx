import { useState } from "preact/hooks";
import { api, type Page, type Rec } from "../api.ts";
import { FORM, deviceStatus } from "../deployment.ts";
import { t } from "../i18n.ts";
import { Link } from "../router.tsx";
import { useLive } from "../live.ts";
import { followTask } from "../task.ts";
import { ErrorBox, Field, Section, StatusBadge, Table, errorsOf, useInterval, useLoad } from "../ui.tsx";

/** A group: its members (add more), a group command followed as a task, and its control logs. */
export function GroupPage({ id }: Record<string, string>) {
  const group = useLoad(() => api<Rec>("GET", `/groups/${id}`), [id]);
  const members = useLoad(() => api<Page<Rec>>("GET", `/groups/${id}/devices?_limit=100`), [id]);
  const candidates = useLoad(() => api<Rec[]>("GET", `/broker_select/groups/${id}/not_joined_devices`), [id]);
  const logs = useLoad(() => api<Page<Rec>>("GET", `/groups/${id}/control_logs?_limit=10`), [id]);
  useInterval(members.reload, 5000);
  // A member's command result changes a control log's status: read them again (at most every 300 ms).
  useLive(logs.reload, (e) => e.type === "command_result");
  const [pick, setPick] = useState("");
  const [payload, setPayload] = useState("");
  const [needAck, setNeedAck] = useState(0);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [task, setTask] = useState<Rec | null>(null);
  const g = group.data;
  const add = async () => {
    if (!pick) return;
    await api("POST", `/groups/${id}/devices`, { ids: [Number(pick)] });
    setPick("");
    members.reload();
    candidates.reload();
  };
  const removeMember = async (deviceIntID: number) => {
    await api("DELETE", `/groups/${id}/devices?ids=${deviceIntID}`);
    members.reload();
    candidates.reload();
  };
  const publish = async (e: Event) => {
    e.preventDefault();
    if (!g) return;
    setErrors({});
    try {
      const body: Rec = { groupID: g.groupID, payload, needAck };
      if (FORM === "1") body.groupIntID = g.id;
      const r = await api<Rec>("POST", "/group_publish", body);
      await followTask(r.statusUrl, setTask, 1000);
      logs.reload();
    } catch (err) {
      setErrors(errorsOf(err));
    }
  };
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
      <Section title={t("members")}>
        <div class="toolbar">
          <select name="member" value={pick} onChange={(e) => setPick(e.currentTarget.value)}>
            <option value="">—</option>
            {(candidates.data ?? []).map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
          <button onClick={() => void add()} disabled={!pick}>
            {t("addMembers")}
          </button>
        </div>
        <Table
          rows={members.data?.items}
          columns={[
            { label: t("name"), cell: (d) => <Link href={`/devices/${d.id}`}>{d.deviceName}</Link> },
            { label: "deviceID", cell: (d) => <code>{d.deviceID}</code> },
            { label: t("status"), cell: (d) => <StatusBadge {...deviceStatus(d)} /> },
            {
              label: "",
              cell: (d) => (
                <button class="small" onClick={() => void removeMember(Number(d.id))}>
                  {t("remove")}
                </button>
              ),
            },
          ]}
        />
      </Section>
      <Section title={t("groupPublish")}>
        <form class="inline" onSubmit={(e) => void publish(e)}>
          <Field label={t("payload")} name="payload" errors={errors}>
            <input name="payload" value={payload} onInput={(e) => setPayload(e.currentTarget.value)} />
          </Field>
          <label class="check">
            <input
              type="checkbox"
              checked={needAck === 1}
              onChange={(e) => setNeedAck(e.currentTarget.checked ? 1 : 0)}
            />
            {t("needAck")}
          </label>
          <button type="submit" class="primary">
            {t("send")}
          </button>
        </form>
        {errors._form ? <ErrorBox error={new Error(errors._form)} /> : null}
        {task ? (
          <p>
            {t("progress")}: {task.progress}% · {task.message ?? ""}
          </p>
        ) : null}
      </Section>
      <Section title={t("controlLogs")}>
        <Table
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
