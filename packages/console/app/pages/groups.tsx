import { useState } from "preact/hooks";
import { api, type Page, type Rec } from "../api.ts";
import { FORM, deviceStatus } from "../deployment.ts";
import { t } from "../i18n.ts";
import { useListState } from "../list-state.ts";
import { Link, navigate } from "../router.tsx";
import { SimpleForm } from "../simple-form.tsx";
import { followTask } from "../task.ts";
import { ErrorBox, Field, Pager, Section, StatusBadge, Table, errorsOf, useInterval, useLoad } from "../ui.tsx";
import { useProducts } from "./devices.tsx";

/** Groups, searchable by name. */
export function GroupList() {
  const list = useListState();
  const { data, error } = useLoad(() => api<Page<Rec>>("GET", `/groups${list.query}`), [list.query]);
  return (
    <div>
      <h1>{t("groups")}</h1>
      <div class="toolbar">
        <input
          type="search"
          name="groupName_like"
          placeholder={t("searchByName")}
          value={list.filters.groupName_like ?? ""}
          onInput={(e) => list.setFilter("groupName_like", e.currentTarget.value)}
        />
        <Link href="/groups/new" class="button primary">
          {t("newGroup")}
        </Link>
      </div>
      <ErrorBox error={error} />
      <Table
        testId="group-table"
        rows={data?.items}
        sort={list.sort}
        onSort={list.toggleSort}
        columns={[
          { label: t("name"), cell: (g) => <Link href={`/groups/${g.id}`}>{g.groupName}</Link> },
          { label: "groupID", cell: (g) => <code>{g.groupID}</code> },
          { label: t("product"), cell: (g) => g.productName },
          { label: t("deviceCount"), cell: (g) => g.deviceCount ?? g.devices?.length ?? "" },
          { label: t("createAt"), cell: (g) => g.createAt, sort: "createAt" },
        ]}
      />
      <Pager meta={data?.meta} onPage={list.setPage} />
    </div>
  );
}

/** Creates a group of one product's devices. */
export function GroupNew() {
  const products = useProducts();
  if (!products.data) return <ErrorBox error={products.error} />;
  return (
    <SimpleForm
      title={t("newGroup")}
      testId="group-form"
      cancel="/groups"
      initial={{ groupName: "", productID: products.data[0]?.productID ?? "", description: "" }}
      fields={[
        { name: "groupName", label: t("name") },
        {
          name: "productID",
          label: t("product"),
          kind: "select",
          options: products.data.map((p) => [String(p.productID), String(p.productName)]),
        },
        { name: "description", label: t("description"), kind: "textarea" },
      ]}
      submit={async (body) => {
        const g = await api<Rec>("POST", "/groups", body);
        navigate(`/groups/${g.id}`);
      }}
    />
  );
}

/** A group: its members (add more), a group command followed as a task, and its control logs. */
export function GroupPage({ id }: Record<string, string>) {
  const group = useLoad(() => api<Rec>("GET", `/groups/${id}`), [id]);
  const members = useLoad(() => api<Page<Rec>>("GET", `/groups/${id}/devices?_limit=100`), [id]);
  const candidates = useLoad(() => api<Rec[]>("GET", `/broker_select/groups/${id}/not_joined_devices`), [id]);
  const logs = useLoad(() => api<Page<Rec>>("GET", `/groups/${id}/control_logs?_limit=10`), [id]);
  useInterval(members.reload, 5000);
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
