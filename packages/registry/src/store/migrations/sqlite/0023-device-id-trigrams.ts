import { deviceTextTrigrams } from "./device-text-trigrams.js";

/**
 * 0023: a trigram index of device ids, as 0022 made for names, for `deviceID_like` (the device list, uplinks and
 * commands). Before it, at 100,000 devices and 1,000,000 uplinks, `/devices?deviceID_like=…` took 45 ms and
 * `/device_events?deviceID_like=…` 277 ms at the 95th percentile (`bench:rest`): the uplinks were read newest first
 * and each one's device id compared, since no index finds the devices first.
 */
export const deviceIdTrigrams = deviceTextTrigrams("devices_id_fts", "device_id", "devices_id_fts_change");
