import { createHash } from "node:crypto";
import { ok, refuse, type Result } from "../codec/result.js";
import type { ReqId } from "../command.js";

/** The msgType of a firmware update command (our addition to the EMQX-style command set, docs/devices/lwm2m.md). */
export const FIRMWARE_MSG_TYPE = "firmware-update";

/** How the package reaches the device (Firmware Update object 5, resource 9 Firmware Update Delivery Method). */
export type DeliveryMethod = "pull" | "push";

/** A checked firmware update command. */
export interface FirmwareCommand {
  readonly reqID: ReqId;
  readonly method: DeliveryMethod;
  /** The version the device reports in /3/0/3 once updated. */
  readonly version: string;
  /** The package's SHA-256, lowercase hex. */
  readonly sha256: string;
  readonly package: Buffer;
}

/** Whether a downlink payload is a firmware update command (checked cheaply, before the whole JSON is parsed). */
export function isFirmwareCommand(payload: Uint8Array): boolean {
  const head = Buffer.from(payload.subarray(0, 256)).toString("utf8");
  return head.includes(`"msgType":"${FIRMWARE_MSG_TYPE}"`);
}

/**
 * Parses `{reqID, msgType: "firmware-update", data: {method, version, package, sha256}}`: `package` is the image in
 * base64 and must hash to `sha256` (hex), so a package damaged on its way is never sent to a device.
 */
export function parseFirmwareCommand(payload: Uint8Array): Result<FirmwareCommand> {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(payload).toString("utf8"));
  } catch {
    return refuse("the command is not JSON");
  }
  const { reqID, data } = (json ?? {}) as Record<string, unknown>;
  if (typeof reqID !== "string" && !(typeof reqID === "number" && Number.isFinite(reqID)))
    return refuse("reqID must be a number or a string");
  if (typeof data !== "object" || data === null) return refuse("data must be an object");
  const d = data as Record<string, unknown>;
  if (d.method !== "pull" && d.method !== "push") return refuse("data.method must be pull or push");
  if (typeof d.version !== "string" || d.version === "") return refuse("data.version must be a non-empty string");
  if (typeof d.package !== "string" || d.package === "") return refuse("data.package must be the image in base64");
  if (typeof d.sha256 !== "string") return refuse("data.sha256 must be the image's SHA-256 in hex");
  const bytes = Buffer.from(d.package, "base64");
  if (createHash("sha256").update(bytes).digest("hex") !== d.sha256.toLowerCase())
    return refuse("data.package does not match data.sha256");
  return ok({ reqID, method: d.method, version: d.version, sha256: d.sha256.toLowerCase(), package: bytes });
}
