import type { WriteValue } from "../codec/content.js";
import { formatObjectPath, parseObjectPath, pathDepth } from "../codec/object-path.js";
import { resourceType } from "../codec/objects.js";
import { ok, refuse, type Result } from "../codec/result.js";
import { typedFromJson } from "../codec/typed-value.js";
import type { ReqId } from "../command.js";

/**
 * The composite commands (LwM2M Core V1_1 §6.3.2 Read-Composite, §6.3.4 Write-Composite, §6.5.3 Observe-Composite
 * and its cancel): `{reqID, msgType, data: {paths: [...]}}`, or `data: {content: [{path, value}]}` for a write.
 * Parsed beside the single-path commands of command.ts, which they extend.
 */

/** The msgTypes of composite commands. */
export const COMPOSITE_MSG_TYPES = [
  "read-composite",
  "write-composite",
  "observe-composite",
  "cancel-observe-composite",
] as const;

/** One of {@link COMPOSITE_MSG_TYPES}. */
export type CompositeMsgType = (typeof COMPOSITE_MSG_TYPES)[number];

/** A composite command after validation: paths canonical, sorted and without duplicates. */
export type CompositeCommand =
  | {
      readonly reqID: ReqId;
      readonly msgType: "read-composite" | "observe-composite" | "cancel-observe-composite";
      readonly paths: readonly string[];
    }
  | { readonly reqID: ReqId; readonly msgType: "write-composite"; readonly values: readonly WriteValue[] };

/** Most paths (or values) one composite command names. */
const MAX_COMPOSITE_PATHS = 256;

/**
 * The composite command in a downlink payload: undefined when the payload is no JSON object with a composite
 * msgType (then command.ts parses it), else the command or why it is refused.
 */
export function parseCompositeCommand(payload: Uint8Array): Result<CompositeCommand> | undefined {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(payload).toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof json !== "object" || json === null) return undefined;
  const { reqID, msgType, data } = json as Record<string, unknown>;
  if (!(COMPOSITE_MSG_TYPES as readonly unknown[]).includes(msgType)) return undefined;
  const type = msgType as CompositeMsgType;
  if (typeof reqID !== "string" && !(typeof reqID === "number" && Number.isFinite(reqID)))
    return refuse("reqID must be a number or a string");
  if (typeof data !== "object" || data === null || Array.isArray(data)) return refuse("data must be an object");
  const d = data as Record<string, unknown>;
  if (type === "write-composite") {
    const values = compositeValues(d.content);
    return values.ok ? ok({ reqID, msgType: type, values: values.value }) : values;
  }
  const paths = compositePaths(d.paths);
  return paths.ok ? ok({ reqID, msgType: type, paths: paths.value }) : paths;
}

function compositePaths(list: unknown): Result<string[]> {
  if (!Array.isArray(list) || list.length === 0)
    return refuse('data.paths must be a non-empty list of object paths such as ["/3/0/0", "/3303/0"]');
  if (list.length > MAX_COMPOSITE_PATHS) return refuse(`data.paths names more than ${MAX_COMPOSITE_PATHS} paths`);
  const out = new Set<string>();
  for (const item of list as unknown[]) {
    if (typeof item !== "string") return refuse("each of data.paths must be an object path such as /3/0/0");
    const path = parseObjectPath(item);
    if (!path.ok) return refuse(`data.paths: ${path.reason}`);
    out.add(formatObjectPath(path.value));
  }
  return ok([...out].sort());
}

function compositeValues(content: unknown): Result<WriteValue[]> {
  if (!Array.isArray(content) || content.length === 0)
    return refuse("data.content must be a non-empty list of {path, value}");
  if (content.length > MAX_COMPOSITE_PATHS) return refuse(`data.content has more than ${MAX_COMPOSITE_PATHS} values`);
  const values: WriteValue[] = [];
  const seen = new Set<string>();
  for (const item of content as unknown[]) {
    if (typeof item !== "object" || item === null) return refuse("data.content must be a list of {path, value}");
    const { path, value } = item as Record<string, unknown>;
    if (typeof path !== "string") return refuse("each data.content entry needs a path");
    const parsed = parseObjectPath(path);
    if (!parsed.ok) return refuse(`data.content: ${parsed.reason}`);
    const text = formatObjectPath(parsed.value);
    if (pathDepth(parsed.value) < 3) return refuse(`${text} names no resource to give a value`);
    if (seen.has(text)) return refuse(`${text} is given twice`);
    seen.add(text);
    const typed = typedFromJson(value, resourceType(parsed.value));
    if (!typed.ok) return refuse(`${text}: ${typed.reason}`);
    values.push({ path: text, value: typed.value });
  }
  return ok(values);
}
