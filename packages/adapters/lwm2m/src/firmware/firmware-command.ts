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

/** The `"package":"<base64>"` member of a command's bytes: where it starts and ends (with one comma beside it). */
const PACKAGE_KEY = Buffer.from('"package":"');

/**
 * The command's bytes without its package member, and the package's base64 bytes (a view, not a copy): the package
 * is the command's bulk (hundreds of KB), so the rest is parsed as JSON without it. Undefined when there is none.
 */
function splitPackage(bytes: Buffer): { rest: Buffer; base64: Buffer } | undefined {
  const at = bytes.indexOf(PACKAGE_KEY);
  if (at < 0) return undefined;
  const start = at + PACKAGE_KEY.length;
  const end = bytes.indexOf(0x22, start); // base64 holds no quote or backslash
  if (end < 0) return undefined;
  const base64 = bytes.subarray(start, end);
  // Drop the member and one comma: the one before it, else the one after it (it was first).
  const before = bytes[at - 1] === 0x2c ? at - 1 : at;
  const after = before === at && bytes[end + 1] === 0x2c ? end + 2 : end + 1;
  return { rest: Buffer.concat([bytes.subarray(0, before), bytes.subarray(after)]), base64 };
}

/**
 * Packages by SHA-256 while any update holds them: the same package sent to many devices (a group's update, each
 * command carrying it in base64) is decoded, checked and held once, whatever the number of devices.
 */
const packages = new Map<string, WeakRef<Buffer>>();
const forget = new FinalizationRegistry<string>((sha256) => {
  if (packages.get(sha256)?.deref() === undefined) packages.delete(sha256);
});

/** The package `base64` holds, shared with every command of the same SHA-256; undefined when it does not hash so. */
function packageOf(sha256: string, base64: Buffer): Buffer | undefined {
  const held = packages.get(sha256)?.deref();
  if (held) return held;
  const bytes = Buffer.from(base64.toString("latin1"), "base64");
  if (createHash("sha256").update(bytes).digest("hex") !== sha256) return undefined;
  packages.set(sha256, new WeakRef(bytes));
  forget.register(bytes, sha256);
  return bytes;
}

/**
 * Parses `{reqID, msgType: "firmware-update", data: {method, version, sha256, package, …}}`: `package` is the image
 * in base64 and must hash to `sha256` (hex), so a package damaged on its way is never sent to a device. A package
 * already held under that SHA-256 (checked when it was decoded) is shared, and the command's base64 not decoded.
 */
export function parseFirmwareCommand(payload: Uint8Array): Result<FirmwareCommand> {
  const bytes = Buffer.isBuffer(payload)
    ? payload
    : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const split = splitPackage(bytes);
  let json: unknown;
  try {
    json = JSON.parse((split?.rest ?? bytes).toString("utf8"));
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
  if (!split || split.base64.length === 0) return refuse("data.package must be the image in base64");
  if (typeof d.sha256 !== "string") return refuse("data.sha256 must be the image's SHA-256 in hex");
  const sha256 = d.sha256.toLowerCase();
  const image = packageOf(sha256, split.base64);
  if (!image) return refuse("data.package does not match data.sha256");
  return ok({ reqID, method: d.method, version: d.version, sha256, package: image });
}
