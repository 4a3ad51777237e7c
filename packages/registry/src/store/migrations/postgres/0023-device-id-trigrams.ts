import { deviceTextTrigrams } from "./pg-trgm.js";

/**
 * 0023: a trigram index of lowered device ids, for `deviceID_like`, as 0022 made for names (and SQLite's 0023 with
 * an FTS5 table). Without pg_trgm this adds nothing.
 */
export const deviceIdTrigrams = deviceTextTrigrams("devices_id_trgm", "device_id");
