import { CONTENT_FORMAT } from "../codec/content-format.js";
import { recordValue, senmlValue, type WriteValue } from "../codec/content.js";
import { formatObjectPath, parseObjectPath, pathDepth } from "../codec/object-path.js";
import { ok, refuse, type Result } from "../codec/result.js";
import {
  decodeCbor,
  decodeSenmlCbor,
  decodeSenmlJson,
  encodeCbor,
  encodeSenmlCbor,
  encodeSenmlJson,
  type SenmlRecord,
} from "../codec/senml.js";
import type { ContentEntry, TypedValue } from "../codec/typed-value.js";
import { decodeLwm2mCborContent, decodeLwm2mCborPaths, encodeLwm2mCbor } from "../codec/lwm2m-cbor.js";

/**
 * Payloads whose values name paths anywhere in the client (LwM2M Core V1_1 §6.3.2 composite operations, §6.4.3
 * Send): unlike a Read's answer they have no base path the values lie within. SenML JSON (110), SenML CBOR (112) and,
 * in 1.2, LwM2M CBOR (11544) carry them.
 */

/** Whether a content format can carry a composite payload. */
export const isCompositeFormat = (format: number | undefined): format is 110 | 112 | 11544 =>
  format === CONTENT_FORMAT.senmlJson || format === CONTENT_FORMAT.senmlCbor || format === CONTENT_FORMAT.lwm2mCbor;

/** Encodes full paths (each with its value, or null) as LwM2M CBOR; a path that does not parse is refused. */
function lwm2mCbor(items: readonly { path: string; value: TypedValue | null }[]): Result<Uint8Array> {
  const values = [];
  for (const item of items) {
    const path = parseObjectPath(item.path);
    if (!path.ok) return path;
    values.push({ path: path.value, value: item.value });
  }
  return encodeLwm2mCbor(values);
}

/** Decodes SenML records (or LwM2M CBOR values) naming resources or resource instances at any path into entries. */
export function decodeCompositeContent(format: number, bytes: Uint8Array, now?: number): Result<ContentEntry[]> {
  if (!isCompositeFormat(format))
    return refuse(`content format ${format} is not SenML JSON (110), SenML CBOR (112) or LwM2M CBOR (11544)`);
  if (format === CONTENT_FORMAT.lwm2mCbor) return decodeLwm2mCborContent(bytes, undefined);
  const options = now === undefined ? {} : { now };
  const records =
    format === CONTENT_FORMAT.senmlJson ? decodeSenmlJson(bytes, options) : decodeSenmlCbor(bytes, options);
  if (!records.ok) return records;
  const out: ContentEntry[] = [];
  for (const record of records.value) {
    const name = record.name.length > 1 && record.name.endsWith("/") ? record.name.slice(0, -1) : record.name;
    const path = parseObjectPath(name);
    if (!path.ok) return refuse(`record name "${record.name}": ${path.reason}`);
    if (pathDepth(path.value) < 3) return refuse(`record ${name} names no resource`);
    out.push({
      path: formatObjectPath(path.value),
      value: recordValue(record.value, false),
      ...(record.time === undefined ? {} : { time: record.time }),
    });
  }
  return ok(out);
}

/** Encodes Write-Composite values (full paths, no base name) as SenML JSON or CBOR, or LwM2M CBOR. */
export function encodeCompositeWrite(format: number, values: readonly WriteValue[]): Result<Uint8Array> {
  if (!isCompositeFormat(format)) return refuse(`content format ${format} cannot carry a composite write`);
  if (format === CONTENT_FORMAT.lwm2mCbor) return lwm2mCbor(values);
  const records: SenmlRecord[] = values.map((v) => ({ name: v.path, value: senmlValue(v.value) }));
  return format === CONTENT_FORMAT.senmlJson ? encodeSenmlJson(records) : encodeSenmlCbor(records);
}

/**
 * The payload of a Read-Composite or Observe-Composite (FETCH): one record per path with its name and no value
 * (Core V1_1 §6.3.2.1), `[{"n":"/3/0/0"}]` in JSON, `[{0: "/3/0/0"}]` in CBOR; in LwM2M CBOR each path with a
 * null value, `{[3, 0, 0]: null}`.
 */
export function encodeCompositePaths(format: number, paths: readonly string[]): Result<Uint8Array> {
  if (format === CONTENT_FORMAT.lwm2mCbor) return lwm2mCbor(paths.map((path) => ({ path, value: null })));
  if (format === CONTENT_FORMAT.senmlJson) return ok(Buffer.from(JSON.stringify(paths.map((n) => ({ n })))));
  if (format === CONTENT_FORMAT.senmlCbor) return encodeCbor(paths.map((n) => new Map([[0, n]])));
  return refuse(`content format ${format} cannot carry composite paths`);
}

/** Reads the paths of a FETCH payload (what {@link encodeCompositePaths} writes), each resolved against `bn`. */
export function decodeCompositePaths(format: number | undefined, bytes: Uint8Array): Result<string[]> {
  if (format === CONTENT_FORMAT.lwm2mCbor) return decodeLwm2mCborPaths(bytes);
  let items: unknown;
  if (format === CONTENT_FORMAT.senmlJson) {
    try {
      items = JSON.parse(Buffer.from(bytes).toString("utf8"));
    } catch (err) {
      return refuse(`SenML JSON does not parse: ${(err as Error).message}`);
    }
  } else if (format === CONTENT_FORMAT.senmlCbor) {
    const decoded = decodeCbor(bytes);
    if (!decoded.ok) return decoded;
    items = decoded.value;
  } else return refuse(`content format ${String(format)} cannot carry composite paths`);
  if (!Array.isArray(items)) return refuse("composite paths are not an array of records");
  const paths: string[] = [];
  let base = "";
  for (const item of items as unknown[]) {
    const field = (name: string, label: number) =>
      item instanceof Map ? (item.get(label) as unknown) : (item as Record<string, unknown> | null)?.[name];
    const bn = field("bn", -2);
    if (typeof bn === "string") base = bn;
    const n = field("n", 0);
    const name = base + (typeof n === "string" ? n : "");
    const path = parseObjectPath(name.length > 1 && name.endsWith("/") ? name.slice(0, -1) : name);
    if (!path.ok) return refuse(`record name "${name}": ${path.reason}`);
    paths.push(formatObjectPath(path.value));
  }
  return ok(paths);
}
