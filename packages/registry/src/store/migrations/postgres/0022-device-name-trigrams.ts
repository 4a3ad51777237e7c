import { deviceTextTrigrams } from "./pg-trgm.js";

/**
 * 0022: a trigram index of lowered device names (pg_trgm's GIN operator class), which the planner uses by itself for
 * a `deviceName_like` search (`lower(device_name) like '%…%'`) that finds few devices, as SQLite's 0022 does with an
 * FTS5 table. Without pg_trgm (see `trigramOpsSchema`) this adds nothing and searches scan as before.
 */
export const deviceNameTrigrams = deviceTextTrigrams("devices_name_trgm", "device_name");
