import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { RecordForm, type FormField } from "../form.tsx";
import { t } from "../i18n.ts";
import { ListPage } from "../list-page.tsx";
import type { Column } from "../ui.tsx";

/** A list of the device's (its policies, its proxy subscriptions) with removal per row and a form adding to it. */
function DeviceList(props: { title: string; api: string; testId: string; columns: Column[]; add: FormField[] }) {
  const [version, setVersion] = useState(0);
  return (
    <section class="card">
      <ListPage
        spec={{
          title: props.title,
          api: props.api,
          testId: `${props.testId}-table`,
          columns: props.columns,
          deletable: true,
          embedded: true,
          version,
        }}
      />
      <RecordForm
        inline
        mode="create"
        key={version}
        title={t("add")}
        testId={`${props.testId}-form`}
        fields={props.add}
        initial={{}}
        submit={async (s) => {
          await api("POST", props.api, s.body);
          setVersion((v) => v + 1);
        }}
      />
    </section>
  );
}

/** What a device may publish and subscribe to (bound policies) and the topics subscribed on its behalf. */
export function DeviceAccess({ id }: { id: string }) {
  return (
    <div class="grid2">
      <DeviceList
        title={t("policies")}
        api={`/devices/${id}/policies`}
        testId="device-policy"
        columns={[
          { label: t("name"), cell: (p) => p.name },
          { label: t("topic"), cell: (p) => <code>{p.topic}</code> },
          { label: t("access"), cell: (p) => p.accessLabel ?? p.access },
          { label: t("allow"), cell: (p) => p.allowLabel ?? p.allow },
        ]}
        add={[
          {
            name: "ids",
            label: t("policies"),
            kind: "multiselect",
            optionsFrom: {
              path: `/broker_select/devices/${id}/not_joined_policies?_limit=1000`,
              value: "id",
              label: "name",
            },
          },
        ]}
      />
      <DeviceList
        title={t("subscriptions")}
        api={`/devices/${id}/subscriptions`}
        testId="subscription"
        columns={[
          { label: t("topic"), cell: (s) => <code>{s.topic}</code> },
          { label: "QoS", cell: (s) => s.qos },
          { label: t("createAt"), cell: (s) => s.createAt },
        ]}
        add={[{ name: "topic", label: t("topic") }]}
      />
    </div>
  );
}
