import type { Lwm2mBootstrapSettings } from "../lwm2m/lwm2m-bootstrap.js";
import type { DevicesTable } from "../store/schema.js";

/** Descriptive attributes a caller may set freely (no rule depends on them): copied as given on create and edit. */
export const DESCRIPTIVE_FIELDS = [
  "carrier",
  "physicalNetwork",
  "imei",
  "imsi",
  "autoSub",
  "modBusIndex",
  "latitude",
  "longitude",
  "location",
  "manufacturer",
  "serialNumber",
  "softVersion",
  "hardwareVersion",
  "description",
  "deviceConsoleIp",
  "deviceConsoleUsername",
  "deviceConsolePort",
  "metaData",
  "scopes",
  "gatewayProtocol",
  "upLinkNetwork",
  "upLinkProtocol",
  "mac",
  "channel",
] as const satisfies ReadonlyArray<keyof DevicesTable>;

type Descriptive = { [K in (typeof DESCRIPTIVE_FIELDS)[number]]?: DevicesTable[K] | undefined };

/** What a caller sends to create a device or gateway (already shape-validated by the API). */
export type DeviceInput = Descriptive & {
  productId: string;
  deviceName: string;
  /** 1 terminal, 2 gateway, 3 smartphone. */
  deviceType?: number | undefined;
  upLinkSystem?: number | null | undefined;
  gateway?: number | null | undefined;
  parentDevice?: number | null | undefined;
  authType?: number | undefined;
  deviceId?: string | undefined;
  deviceUsername?: string | undefined;
  token?: string | undefined;
  blocked?: number | undefined;
  lora?: Record<string, unknown> | null | undefined;
  /** LwM2M devices: bootstrap settings; null clears them (deployment defaults). */
  lwm2mBootstrap?: Lwm2mBootstrapSettings | null | undefined;
  /** Certificate ids an authType 2 device may connect with. */
  certs?: number[] | undefined;
};

/** An edit: any member of the input but the product, which is fixed. */
export type DeviceEdit = Partial<Omit<DeviceInput, "productId">> & { productId?: string | undefined };
