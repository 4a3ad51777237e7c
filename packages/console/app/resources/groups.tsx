import { FORM } from "../deployment.ts";
import { t } from "../i18n.ts";
import type { Resource } from "../resource.tsx";
import { Link } from "../router.tsx";
import { PRODUCTS } from "./options.ts";

/** Groups of one product's devices (members and group commands on the group's page). */
export const groups: Resource = {
  route: "/groups",
  api: "/groups",
  testId: "group",
  title: () => t("groups"),
  newLabel: () => t("newGroup"),
  editLabel: () => t("editGroup"),
  detail: true,
  list: () => ({
    filters: [
      { name: "groupName_like", label: t("searchByName") },
      { name: "groupID_like", label: "groupID" },
    ],
    columns: [
      { label: t("name"), cell: (g) => <Link href={`/groups/${g.id}`}>{g.groupName}</Link>, sort: "groupName" },
      { label: "groupID", cell: (g) => <code>{g.groupID}</code> },
      { label: t("product"), cell: (g) => g.productName },
      { label: t("deviceCount"), cell: (g) => (FORM === "2" ? (g.devices?.length ?? 0) : (g.deviceCount ?? "")) },
      { label: t("createAt"), cell: (g) => g.createAt, sort: "createAt" },
    ],
  }),
  fields: () => [
    { name: "groupName", label: t("name") },
    { name: "productID", label: t("product"), kind: "select", optionsFrom: PRODUCTS, createOnly: true },
    { name: "description", label: t("description"), kind: "textarea" },
  ],
  initial: () => ({ groupName: "", productID: "", description: "" }),
};
