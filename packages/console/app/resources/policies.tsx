import { FORM } from "../deployment.ts";
import { t } from "../i18n.ts";
import type { Resource } from "../resource.tsx";

/** Policy access codes: Form 1 counts from 1 (publish, subscribe, both), Form 2 from 0. */
const ACCESS = (): [number, string][] => {
  const first = FORM === "1" ? 1 : 0;
  return [
    [first, t("publish")],
    [first + 1, t("subscribe")],
    [first + 2, t("pubSub")],
  ];
};

/** Publish/subscribe policies. */
export const policies: Resource = {
  route: "/policies",
  api: "/policies",
  testId: "policy",
  title: () => t("policies"),
  newLabel: () => t("newPolicy"),
  editLabel: () => t("editPolicy"),
  list: () => ({
    filters: [{ name: "name_like", label: t("searchByName") }],
    columns: [
      { label: t("name"), cell: (p) => p.name, sort: "name" },
      { label: t("topic"), cell: (p) => <code>{p.topic}</code> },
      { label: t("access"), cell: (p) => p.accessLabel ?? p.access },
      { label: t("allow"), cell: (p) => p.allowLabel ?? p.allow },
      { label: t("createAt"), cell: (p) => p.createAt, sort: "createAt" },
    ],
  }),
  fields: () => [
    { name: "name", label: t("name") },
    { name: "topic", label: t("topic") },
    { name: "access", label: t("access"), kind: "select", options: ACCESS() },
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
  ],
  initial: () => ({ name: "", topic: "", access: ACCESS()[0]![0], allow: 1, description: "" }),
};
