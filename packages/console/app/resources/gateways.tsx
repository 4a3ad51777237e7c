import { deviceStatus } from "../deployment.ts";
import { t } from "../i18n.ts";
import type { Resource } from "../resource.tsx";
import { Link } from "../router.tsx";
import { StatusBadge } from "../ui.tsx";
import { PRODUCTS, PROTOCOLS } from "./options.ts";

/** upLinkNetwork codes. */
const NETWORKS: [number, string][] = [
  [1, "2G"],
  [2, "3G"],
  [3, "4G"],
  [4, "Wi-Fi"],
  [5, "NB-IoT"],
];

/** Gateways: devices that relay others (their devices are listed at /devices?gateway=<id>). */
export const gateways: Resource = {
  route: "/gateways",
  api: "/gateways",
  testId: "gateway",
  title: () => t("gateways"),
  newLabel: () => t("newGateway"),
  editLabel: () => t("editGateway"),
  list: () => ({
    refreshMs: 10_000,
    liveTypes: ["online", "offline"],
    filters: [{ name: "gatewayName_like", label: t("searchByName") }],
    columns: [
      { label: t("name"), cell: (g) => g.gatewayName },
      { label: "deviceID", cell: (g) => <code>{g.deviceID}</code> },
      { label: t("product"), cell: (g) => g.productName },
      { label: t("protocol"), cell: (g) => g.gatewayProtocolLabel ?? g.gatewayProtocol },
      { label: t("status"), cell: (g) => <StatusBadge {...deviceStatus({ ...g, status: g.deviceStatus })} /> },
      {
        label: t("deviceCount"),
        cell: (g) => <Link href={`/devices?gateway=${g.id}`}>{String(g.deviceCount ?? "→")}</Link>,
      },
      { label: t("createAt"), cell: (g) => g.createAt, sort: "createAt" },
    ],
  }),
  fields: () => [
    { name: "gatewayName", label: t("name") },
    { name: "productID", label: t("product"), kind: "select", optionsFrom: PRODUCTS, createOnly: true },
    { name: "gatewayProtocol", label: t("protocol"), kind: "select", options: PROTOCOLS },
    { name: "upLinkNetwork", label: t("upLinkNetwork"), kind: "select", options: NETWORKS },
    { name: "upLinkProtocol", label: t("upLinkProtocol"), kind: "select", options: PROTOCOLS },
    { name: "mac", label: "MAC", placeholder: "00:1A:2B:3C:4D:5E" },
    {
      name: "authType",
      label: t("authType"),
      kind: "select",
      options: [
        [1, t("token")],
        [2, t("certificate")],
      ],
    },
    { name: "deviceID", label: "deviceID", createOnly: true },
    { name: "deviceUsername", label: "deviceUsername" },
    { name: "token", label: t("token") },
    { name: "description", label: t("description"), kind: "textarea" },
  ],
  initial: () => ({ gatewayName: "", productID: "", gatewayProtocol: 1, authType: 1 }),
};
