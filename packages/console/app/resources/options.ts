import type { Rec } from "../api.ts";
import type { Option, OptionsFrom } from "../form.tsx";
import { t } from "../i18n.ts";

/** cloudProtocol (and gatewayProtocol) codes: 1 MQTT … 7 Modbus. */
export const PROTOCOLS: Option[] = [
  [1, "MQTT"],
  [2, "CoAP"],
  [3, "LwM2M"],
  [4, "LoRa"],
  [5, "HTTP"],
  [6, "WebSocket"],
  [7, "Modbus"],
];

/** 1/0 switches (enable, isShow). */
export const YES_NO = (): Option[] => [
  [1, t("yes")],
  [0, t("no")],
];

/** The tenant's products for a select: value `productID`, the protocol beside the name when there is one. */
export const PRODUCTS: OptionsFrom & { path: string } = {
  path: "/products?_limit=1000",
  value: "productID",
  label: (p: Rec) => `${String(p.productName)}${p.cloudProtocolLabel ? ` (${String(p.cloudProtocolLabel)})` : ""}`,
};

/** The data points of the form's product (`productID`), by id. */
export const DATA_POINTS_OF_PRODUCT: OptionsFrom = {
  path: (b: Rec) =>
    b.productID ? `/data_points?productID=${encodeURIComponent(String(b.productID))}&_limit=1000` : undefined,
  value: "id",
  label: "dataPointName",
};
