import type { WriteValue } from "./codec/content.js";
import { formatObjectPath, isWithin, parseObjectPath, pathDepth, type ObjectPath } from "./codec/object-path.js";
import { resourceType } from "./codec/objects.js";
import { ok, refuse, type Result } from "./codec/result.js";
import { typedFromJson } from "./codec/typed-value.js";

/**
 * The JSON commands `device_publish` sends an LwM2M device (as EMQX's LwM2M gateway takes them, which ActorCloud
 * drove): `{reqID, msgType, data: {path, …}}`. Parsing is pure and checks everything a device request needs, so a
 * malformed command fails at once and nothing goes to the device.
 */

/** The operations a command names (Device Management and Information Reporting interfaces, §5.4, §5.5). */
export const MSG_TYPES = [
  "read",
  "write",
  "execute",
  "discover",
  "write-attr",
  "observe",
  "cancel-observe",
  "create",
  "delete",
] as const;

/** One of {@link MSG_TYPES}. */
export type MsgType = (typeof MSG_TYPES)[number];

/** The id the caller gave the command, echoed in its answer: a number or a string, as sent. */
export type ReqId = number | string;

/** A command after validation; `path` is canonical (`/3/0/0`). */
export type Lwm2mCommand =
  | {
      readonly reqID: ReqId;
      readonly msgType: "read" | "discover" | "observe" | "cancel-observe" | "delete";
      readonly path: string;
    }
  | {
      readonly reqID: ReqId;
      readonly msgType: "write" | "create";
      readonly path: string;
      readonly values: WriteValue[];
    }
  | { readonly reqID: ReqId; readonly msgType: "execute"; readonly path: string; readonly args?: string }
  /** `attributes` as Uri-Query options (`pmin=10`), in the order pmin, pmax, gt, lt, st. */
  | { readonly reqID: ReqId; readonly msgType: "write-attr"; readonly path: string; readonly attributes: string[] };

/** Which path depths each operation takes (1 object … 4 resource instance). */
const DEPTHS: Record<MsgType, readonly number[]> = {
  read: [1, 2, 3, 4],
  write: [2, 3, 4],
  execute: [3],
  discover: [1, 2, 3],
  "write-attr": [1, 2, 3, 4],
  observe: [1, 2, 3, 4],
  "cancel-observe": [1, 2, 3, 4],
  create: [1],
  delete: [2],
};

const LEVELS = ["", "an object", "an object instance", "a resource", "a resource instance"];

/** Attributes of Write-Attributes (§5.1.2): periods in whole seconds, thresholds as numbers. */
const ATTRIBUTES = ["pmin", "pmax", "gt", "lt", "st"] as const;

/** Largest Execute argument string taken, bytes (§5.4.5 arguments are short `0='…',1` lists). */
const MAX_EXECUTE_ARGS_BYTES = 1024;

/** Parses a command from the downlink's payload bytes (UTF-8 JSON); every mistake is a refusal with a reason. */
export function parseCommand(payload: Uint8Array): Result<Lwm2mCommand> {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(payload).toString("utf8"));
  } catch {
    return refuse("the command is not JSON: expected {reqID, msgType, data: {path, …}}");
  }
  if (typeof json !== "object" || json === null || Array.isArray(json))
    return refuse("the command is not a JSON object: expected {reqID, msgType, data: {path, …}}");
  const { reqID, msgType, data } = json as Record<string, unknown>;
  if (typeof reqID !== "string" && !(typeof reqID === "number" && Number.isFinite(reqID)))
    return refuse("reqID must be a number or a string");
  if (typeof msgType !== "string" || !(MSG_TYPES as readonly string[]).includes(msgType))
    return refuse(`msgType ${JSON.stringify(msgType)} is not one of ${MSG_TYPES.join(", ")}`);
  const type = msgType as MsgType;
  if (typeof data !== "object" || data === null || Array.isArray(data)) return refuse("data must be an object");
  const d = data as Record<string, unknown>;
  if (typeof d.path !== "string") return refuse("data.path must be an object path such as /3/0/0");
  const parsed = parseObjectPath(d.path);
  if (!parsed.ok) return parsed;
  const depth = pathDepth(parsed.value);
  if (!DEPTHS[type].includes(depth))
    return refuse(`${type} takes ${DEPTHS[type].map((n) => LEVELS[n]).join(" or ")}, not ${d.path}`);
  const path = formatObjectPath(parsed.value);
  switch (type) {
    case "write":
    case "create": {
      const values = writeValues(parsed.value, d, type === "create");
      return values.ok ? ok({ reqID, msgType: type, path, values: values.value }) : values;
    }
    case "execute": {
      if (d.args === undefined) return ok({ reqID, msgType: type, path });
      if (typeof d.args !== "string") return refuse("data.args must be a string such as \"0='on',1\"");
      if (Buffer.byteLength(d.args) > MAX_EXECUTE_ARGS_BYTES)
        return refuse(`data.args is longer than ${MAX_EXECUTE_ARGS_BYTES} bytes`);
      return ok({ reqID, msgType: type, path, args: d.args });
    }
    case "write-attr": {
      const attributes = writeAttributes(d);
      return attributes.ok ? ok({ reqID, msgType: type, path, attributes: attributes.value }) : attributes;
    }
    default:
      return ok({ reqID, msgType: type, path });
  }
}

/** `data.value` (at a resource path) or `data.content: [{path, value}]`, typed by the resource table. */
function writeValues(base: ObjectPath, d: Record<string, unknown>, create: boolean): Result<WriteValue[]> {
  const entries: { path: unknown; value: unknown }[] = [];
  if (d.content !== undefined) {
    if (!Array.isArray(d.content)) return refuse("data.content must be a list of {path, value}");
    for (const item of d.content as unknown[]) {
      if (typeof item !== "object" || item === null) return refuse("data.content must be a list of {path, value}");
      const { path, value } = item as Record<string, unknown>;
      entries.push({ path, value });
    }
  } else if (d.value !== undefined) entries.push({ path: formatObjectPath(base), value: d.value });
  if (entries.length === 0 && !create) return refuse("write needs data.value or data.content: [{path, value}]");
  const values: WriteValue[] = [];
  for (const entry of entries) {
    if (typeof entry.path !== "string") return refuse("each data.content entry needs a path");
    const path = parseObjectPath(entry.path);
    if (!path.ok) return path;
    const text = formatObjectPath(path.value);
    if (!isWithin(path.value, base)) return refuse(`${text} lies outside ${formatObjectPath(base)}`);
    if (pathDepth(path.value) < 3) return refuse(`${text} names no resource to give a value`);
    const typed = typedFromJson(entry.value, resourceType(path.value));
    if (!typed.ok) return refuse(`${text}: ${typed.reason}`);
    values.push({ path: text, value: typed.value });
  }
  return ok(values);
}

function writeAttributes(d: Record<string, unknown>): Result<string[]> {
  const out: string[] = [];
  for (const name of ATTRIBUTES) {
    const value = d[name];
    if (value === undefined) continue;
    const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    if (typeof number !== "number" || !Number.isFinite(number)) return refuse(`${name} must be a number`);
    if ((name === "pmin" || name === "pmax") && !(Number.isSafeInteger(number) && number >= 0))
      return refuse(`${name} must be whole seconds, 0 or more`);
    out.push(`${name}=${number}`);
  }
  if (out.length === 0) return refuse(`write-attr needs at least one of ${ATTRIBUTES.join(", ")}`);
  return ok(out);
}
