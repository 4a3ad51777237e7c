export { startCentral, type Central } from "./central.js";
export { readCentralConfig, centralSettings, type CentralConfig } from "./config.js";
