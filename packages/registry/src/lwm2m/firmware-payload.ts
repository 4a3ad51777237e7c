import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The msgType of an LwM2M firmware update command (docs/devices/lwm2m.md, Firmware update). */
const FIRMWARE_MSG_TYPE = "firmware-update";
/** Firmware ids are UUIDs: anything else never names a file. */
const FIRMWARE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What a firmware update command's control log holds: the package by reference, never its bytes. */
export interface FirmwareReference {
  firmwareID: string;
  name: string;
  version: string;
  size: number;
  sha256: string;
}

/** The payload of a firmware update command as stored: `{reqID, msgType, data: {method, ...reference}}`. */
export function firmwareCommandPayload(reqID: string, method: string, firmware: FirmwareReference): string {
  const { firmwareID, name, version, size, sha256 } = firmware;
  return JSON.stringify({
    reqID,
    msgType: FIRMWARE_MSG_TYPE,
    data: { method, firmwareID, name, version, size, sha256 },
  });
}

/**
 * The downlink of a stored firmware update command: its payload with the package (`data.package`, base64) added from
 * the firmware folder, so the LwM2M adapter gets the bytes while the control log keeps only the reference. Packages
 * are read once and kept (the last `keep` of them: an update sends one package to many devices); a file that is gone
 * or no longer hashes to the command's SHA-256 is not added, and the adapter fails the command (no package).
 * Any other payload is answered as it is.
 */
export function firmwareDownlinks(dir: string, keep = 4): (payload: string) => string {
  const cache = new Map<string, string>();
  const packageOf = (firmwareId: string, sha256: string): string | undefined => {
    const key = `${firmwareId}:${sha256}`;
    const cached = cache.get(key);
    if (cached !== undefined) {
      cache.delete(key);
      cache.set(key, cached);
      return cached;
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(dir, firmwareId));
    } catch {
      return undefined;
    }
    if (createHash("sha256").update(bytes).digest("hex") !== sha256) return undefined;
    const base64 = bytes.toString("base64");
    cache.set(key, base64);
    while (cache.size > keep) cache.delete(cache.keys().next().value!);
    return base64;
  };
  return (payload) => {
    // Cheap test first: every command of the service goes through here.
    if (!payload.includes(`"msgType":"${FIRMWARE_MSG_TYPE}"`)) return payload;
    let json: { data?: Record<string, unknown> };
    try {
      json = JSON.parse(payload) as typeof json;
    } catch {
      return payload;
    }
    const d = json.data;
    if (!d || typeof d.firmwareID !== "string" || !FIRMWARE_ID.test(d.firmwareID) || typeof d.sha256 !== "string")
      return payload;
    if (d.package !== undefined) return payload;
    const base64 = packageOf(d.firmwareID, d.sha256);
    if (base64 === undefined) return payload;
    return JSON.stringify({ ...json, data: { ...d, package: base64 } });
  };
}
