import { api, type Page, type Rec } from "../api.ts";
import { FORM } from "../deployment.ts";
import { t } from "../i18n.ts";
import { useListState } from "../list-state.ts";
import { Link, navigate } from "../router.tsx";
import { SimpleForm } from "../simple-form.tsx";
import { ErrorBox, Pager, Table, useLoad } from "../ui.tsx";

/** Policy access codes: Form 1 counts from 1 (publish, subscribe, both), Form 2 from 0. */
const ACCESS: [number, string][] =
  FORM === "1"
    ? [
        [1, t("publish")],
        [2, t("subscribe")],
        [3, t("pubSub")],
      ]
    : [
        [0, t("publish")],
        [1, t("subscribe")],
        [2, t("pubSub")],
      ];

/** Publish/subscribe policies. */
export function PolicyList() {
  const list = useListState();
  const { data, error } = useLoad(() => api<Page<Rec>>("GET", `/policies${list.query}`), [list.query]);
  return (
    <div>
      <h1>{t("policies")}</h1>
      <div class="toolbar">
        <input
          type="search"
          name="name_like"
          placeholder={t("searchByName")}
          value={list.filters.name_like ?? ""}
          onInput={(e) => list.setFilter("name_like", e.currentTarget.value)}
        />
        <Link href="/policies/new" class="button primary">
          {t("newPolicy")}
        </Link>
      </div>
      <ErrorBox error={error} />
      <Table
        testId="policy-table"
        rows={data?.items}
        sort={list.sort}
        onSort={list.toggleSort}
        columns={[
          { label: t("name"), cell: (p) => p.name },
          { label: t("topic"), cell: (p) => <code>{p.topic}</code> },
          { label: t("access"), cell: (p) => p.accessLabel ?? p.access },
          { label: t("allow"), cell: (p) => p.allowLabel ?? p.allow },
          { label: t("createAt"), cell: (p) => p.createAt, sort: "createAt" },
        ]}
      />
      <Pager meta={data?.meta} onPage={list.setPage} />
    </div>
  );
}

/** Creates a policy. */
export function PolicyNew() {
  return (
    <SimpleForm
      title={t("newPolicy")}
      testId="policy-form"
      cancel="/policies"
      initial={{ name: "", topic: "", access: ACCESS[0]![0], allow: 1, description: "" }}
      fields={[
        { name: "name", label: t("name") },
        { name: "topic", label: t("topic") },
        { name: "access", label: t("access"), kind: "select", options: ACCESS },
        {
          name: "allow",
          label: t("allow"),
          kind: "select",
          options: [
            [1, t("allow")],
            [0, t("deny")],
          ],
        },
        { name: "description", label: t("description"), kind: "textarea" },
      ]}
      submit={async (body) => {
        await api("POST", "/policies", body);
        navigate("/policies");
      }}
    />
  );
}
