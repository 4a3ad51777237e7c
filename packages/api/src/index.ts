export { createApp, MAX_BODY_BYTES, openApiDocument } from "./app.js";
export type { AppDeps } from "./deps.js";
export { parseDeviceCsv, type CsvRow } from "./transfer/device-csv.js";
export { runDeviceImport, type ImportResult } from "./transfer/device-import.js";
export { DEVICE_COLUMNS } from "./transfer/device-columns.js";
