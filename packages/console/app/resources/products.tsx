import type { Rec } from "../api.ts";
import { FORM } from "../deployment.ts";
import { t } from "../i18n.ts";
import type { Resource } from "../resource.tsx";
import { Link } from "../router.tsx";
import { PROTOCOLS } from "./options.ts";

/** Products: Form 1 fixes the devices' protocol at creation; Form 2 has none and requires a description. */
export const products: Resource = {
  route: "/products",
  api: "/products",
  testId: "product",
  title: () => t("products"),
  newLabel: () => t("newProduct"),
  editLabel: () => t("editProduct"),
  detail: true,
  list: () => ({
    filters: [{ name: "productName_like", label: t("searchByName") }],
    columns: [
      { label: t("name"), cell: (p) => <Link href={`/products/${p.id}`}>{p.productName}</Link>, sort: "productName" },
      { label: "productID", cell: (p) => <code>{p.productID}</code> },
      ...(FORM === "1" ? [{ label: t("protocol"), cell: (p: Rec) => p.cloudProtocolLabel }] : []),
      { label: t("deviceCount"), cell: (p) => (FORM === "2" ? (p.devices?.length ?? 0) : p.deviceCount) },
      { label: t("createAt"), cell: (p) => p.createAt, sort: "createAt" },
    ],
  }),
  fields: () => [
    { name: "productName", label: t("name") },
    ...(FORM === "1"
      ? [{ name: "cloudProtocol", label: t("protocol"), kind: "select" as const, options: PROTOCOLS, createOnly: true }]
      : []),
    { name: "description", label: t("description"), kind: "textarea" },
  ],
  initial: () => ({ productName: "", description: "", cloudProtocol: 1 }),
};
