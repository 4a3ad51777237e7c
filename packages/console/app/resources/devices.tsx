import type { Rec } from "../api.ts";
import { FORM, STATUS_SORT, deviceStatus } from "../deployment.ts";
import type { FormSubmit } from "../form.tsx";
import { t } from "../i18n.ts";
import type { Resource } from "../resource.tsx";
import { Link } from "../router.tsx";
import { StatusBadge } from "../ui.tsx";
import { PRODUCTS } from "./options.ts";

/** Device types: Form 1 1 terminal, 3 smartphone; Form 2 0 terminal, 1 gateway, 2 smartphone. */
const DEVICE_TYPES = (): [number, string][] =>
  FORM === "1"
    ? [
        [1, t("terminal")],
        [3, t("smartphone")],
      ]
    : [
        [0, t("terminal")],
        [1, t("gateway")],
        [2, t("smartphone")],
      ];

/** The protocol of the device being edited, or of the product chosen in the create form (Form 1). */
const protocolOf = (b: Rec, records: (name: string) => Rec[]) =>
  Number(b.cloudProtocol ?? records("productID").find((p) => p.productID === b.productID)?.cloudProtocol ?? 1);

/** Form 1 members the chosen fields imply: a terminal's upLinkSystem (2 under a Modbus gateway), LwM2M's autoSub. */
function deviceBody({ body, records }: FormSubmit, mode: "create" | "edit", record: Rec): Rec {
  if (FORM === "2") return body;
  const sent = { ...body };
  const protocol = protocolOf({ ...record, ...sent }, records);
  const type = Number(sent.deviceType ?? record.deviceType ?? 1);
  if (mode === "create" && type === 1) sent.upLinkSystem = protocol === 7 && sent.gateway ? 2 : 1;
  if (mode === "edit" && sent.gateway) sent.upLinkSystem = 2;
  if (mode === "create" && protocol === 3) sent.autoSub = Number(sent.autoSub ?? 1);
  return sent;
}

/** Devices: search, filters and paging; create and edit with what the product's protocol needs. */
export const devices: Resource = {
  route: "/devices",
  api: "/devices",
  testId: "device",
  title: () => t("devices"),
  newLabel: () => t("newDevice"),
  editLabel: () => t("editDevice"),
  detail: true,
  list: () => ({
    refreshMs: 5000,
    liveTypes: ["online", "offline"],
    filters: [
      { name: "deviceName_like", label: t("searchByName") },
      { name: "deviceID_like", label: t("searchByDeviceID") },
      { name: "productID", label: t("product"), kind: "select", optionsFrom: PRODUCTS },
      ...(FORM === "2"
        ? [
            {
              name: "deviceType_like",
              label: t("deviceType"),
              kind: "select" as const,
              options: DEVICE_TYPES(),
            },
          ]
        : [
            {
              name: "gateway",
              label: t("gateway"),
              kind: "select" as const,
              optionsFrom: { path: "/gateways?_limit=1000", value: "id", label: "gatewayName" },
            },
          ]),
    ],
    columns: [
      { label: t("name"), cell: (d) => <Link href={`/devices/${d.id}`}>{d.deviceName}</Link>, sort: "deviceName" },
      { label: "deviceID", cell: (d) => <code>{d.deviceID}</code> },
      { label: t("product"), cell: (d) => d.productName },
      ...(FORM === "1" ? [{ label: t("protocol"), cell: (d: Rec) => d.cloudProtocolLabel }] : []),
      { label: t("deviceType"), cell: (d) => d.deviceTypeLabel },
      { label: t("status"), cell: (d) => <StatusBadge {...deviceStatus(d)} />, sort: STATUS_SORT },
      { label: t("createAt"), cell: (d) => d.createAt, sort: "createAt" },
    ],
  }),
  fields: () => [
    { name: "deviceName", label: t("name") },
    { name: "productID", label: t("product"), kind: "select", optionsFrom: PRODUCTS, createOnly: true },
    { name: "deviceType", label: t("deviceType"), kind: "select", options: DEVICE_TYPES() },
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
    { name: "deviceUsername", label: "deviceUsername", createOnly: FORM === "2" },
    ...(FORM === "1"
      ? [
          { name: "token", label: t("token") },
          { name: "IMEI", label: "IMEI", when: (b: Rec, r: (n: string) => Rec[]) => protocolOf(b, r) === 3 },
          {
            name: "autoSub",
            label: "autoSub",
            kind: "select" as const,
            options: [
              [1, "1"],
              [0, "0"],
            ] as [number, string][],
            when: (b: Rec, r: (n: string) => Rec[]) => protocolOf(b, r) === 3,
          },
          {
            name: "modBusIndex",
            label: "modBusIndex",
            kind: "number" as const,
            when: (b: Rec, r: (n: string) => Rec[]) => protocolOf(b, r) === 7,
          },
          {
            name: "gateway",
            label: t("gateway"),
            kind: "select" as const,
            optionsFrom: { path: "/gateways?_limit=1000", value: "id", label: "gatewayName" },
            when: (b: Rec, r: (n: string) => Rec[]) => protocolOf(b, r) === 7,
          },
        ]
      : []),
    { name: "manufacturer", label: t("manufacturer") },
    { name: "serialNumber", label: t("serialNumber") },
    { name: "softVersion", label: t("softVersion") },
    { name: "hardwareVersion", label: t("hardwareVersion") },
    { name: "description", label: t("description"), kind: "textarea" },
  ],
  initial: () => ({ deviceName: "", productID: "", authType: 1, deviceType: FORM === "1" ? 1 : 0, autoSub: 1 }),
  toBody: deviceBody,
};
