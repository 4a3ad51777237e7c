/**
 * Columns of a device export, in order, and every column an import accepts (docs/devices/import-export.md).
 * `product` holds the productID (an import also takes a product name unique in the tenant); `gateway` and
 * `parentDevice` hold the deviceID of the gateway and of the upper device; `lora` and `location` hold JSON.
 * `productName` is informative: an import falls back to it when `product` names no product of the tenant.
 */
export const DEVICE_COLUMNS = [
  "deviceName",
  "authType",
  "product",
  "upLinkSystem",
  "gateway",
  "deviceID",
  "deviceUsername",
  "token",
  "IMEI",
  "modBusIndex",
  "deviceType",
  "parentDevice",
  "IMSI",
  "autoSub",
  "lora",
  "carrier",
  "physicalNetwork",
  "longitude",
  "latitude",
  "location",
  "manufacturer",
  "serialNumber",
  "softVersion",
  "hardwareVersion",
  "description",
  "blocked",
  "productName",
] as const;

/** One of DEVICE_COLUMNS. */
export type DeviceColumn = (typeof DEVICE_COLUMNS)[number];

/** Columns an import file must have. */
export const REQUIRED_COLUMNS: readonly DeviceColumn[] = ["deviceName", "product"];
