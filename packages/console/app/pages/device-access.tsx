import { ChildList } from "../child-list.tsx";
import { t } from "../i18n.ts";

/** What a device may publish and subscribe to (bound policies) and the topics subscribed on its behalf. */
export function DeviceAccess({ id }: { id: string }) {
  return (
    <div class="grid2">
      <ChildList
        spec={{
          title: t("policies"),
          api: `/devices/${id}/policies`,
          testId: "device-policy-table",
          columns: [
            { label: t("name"), cell: (p) => p.name },
            { label: t("topic"), cell: (p) => <code>{p.topic}</code> },
            { label: t("access"), cell: (p) => p.accessLabel ?? p.access },
            { label: t("allow"), cell: (p) => p.allowLabel ?? p.allow },
          ],
        }}
        form={{
          title: t("add"),
          testId: "device-policy-form",
          fields: [
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
          ],
        }}
      />
      <ChildList
        spec={{
          title: t("subscriptions"),
          api: `/devices/${id}/subscriptions`,
          testId: "subscription-table",
          columns: [
            { label: t("topic"), cell: (s) => <code>{s.topic}</code> },
            { label: "QoS", cell: (s) => s.qos },
            { label: t("createAt"), cell: (s) => s.createAt },
          ],
        }}
        form={{ title: t("add"), testId: "subscription-form", fields: [{ name: "topic", label: t("topic") }] }}
      />
    </div>
  );
}
