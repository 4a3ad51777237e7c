import {
  MAX_PATH_ID,
  formatObjectPath,
  fromIds,
  isWithin,
  pathDepth,
  pathIds,
  type ObjectPath,
} from "./object-path.js";
import { resourceModel, type ResourceLookup } from "./objects.js";
import { ok, refuse, type Result } from "./result.js";
import { decodeCbor, encodeCbor } from "./senml.js";
import { cborItemValue, encodeCborValue } from "./single-value.js";
import type { ContentEntry, TypedValue } from "./typed-value.js";

/**
 * LwM2M CBOR (`application/vnd.oma.lwm2m+cbor`, content format 11544; LwM2M 1.2 Core §7.4.6): one CBOR map whose
 * keys are path levels and whose values are either the map of the next levels or a resource value. A key is one id
 * (an unsigned integer) or an array of ids that stands for several levels at once, so `{3: {0: {9: 87}}}`,
 * `{[3, 0]: {9: 87}}` and `{[3, 0, 9]: 87}` all say /3/0/9 = 87. Paths are absolute (never relative to the request
 * path). A multiple resource is a map of its instances (`{7: {0: 3800, 1: 5000}}`). Values are plain CBOR items:
 * integers, floats, booleans, text (also object links `3:0` and core links), byte strings (opaque), time as an
 * integer (tag 1 or not); `null` names a path without a value (the path list of a Read- or Observe-Composite).
 * The format has no time stamps. Decoding is cbor-x's (definite and indefinite maps and arrays; it refuses
 * indefinite-length text and byte strings); encoding writes definite lengths and folds chains of single children
 * into one array key.
 */

/** A decoded leaf: its path and the CBOR item there (a Date for tag 0/1 time, null for a path-only entry). */
export interface Lwm2mCborLeaf {
  readonly path: ObjectPath;
  readonly item: CborLeafItem;
}

/** The CBOR items a leaf may hold. */
type CborLeafItem = number | bigint | string | boolean | Uint8Array | Date | null;

/** One value to encode: a path and its typed value, or null for a bare path (composite path lists). */
export interface Lwm2mCborValue {
  readonly path: ObjectPath;
  readonly value: TypedValue | null;
}

/** Most leaves one payload may hold (as SenML's record limit). */
const MAX_LWM2M_CBOR_LEAVES = 4096;

/** Decodes a payload into its leaves in payload order. Never throws: malformed input is refused with a reason. */
export function decodeLwm2mCbor(bytes: Uint8Array, maxLeaves = MAX_LWM2M_CBOR_LEAVES): Result<Lwm2mCborLeaf[]> {
  const parsed = decodeCbor(bytes);
  if (!parsed.ok) return refuse(`LwM2M CBOR does not parse: ${parsed.reason}`);
  if (!(parsed.value instanceof Map)) return refuse("LwM2M CBOR is not a map of paths");
  const out: Lwm2mCborLeaf[] = [];
  const seen = new Set<string>();
  const walk = (map: Map<unknown, unknown>, prefix: readonly number[]): string | undefined => {
    for (const [key, item] of map) {
      const ids = keyIds(key);
      if (typeof ids === "string") return `key under /${prefix.join("/")}: ${ids}`;
      const path = [...prefix, ...ids];
      const at = "/" + path.join("/");
      if (path.length > 4) return `path ${at} has more than 4 levels`;
      if (item instanceof Map) {
        const inner = walk(item as Map<unknown, unknown>, path);
        if (inner !== undefined) return inner;
        continue;
      }
      if (!isLeafItem(item)) return `value at ${at} is ${describe(item)}, not a resource value`;
      if (seen.has(at)) return `path ${at} is given twice`;
      seen.add(at);
      if (out.length >= maxLeaves) return `more than ${maxLeaves} values`;
      out.push({ path: fromIds(path), item });
    }
    return undefined;
  };
  const failed = walk(parsed.value as Map<unknown, unknown>, []);
  if (failed !== undefined) return refuse(`LwM2M CBOR: ${failed}`);
  // A path that holds a value and also has values below it (/3/0/7 = 1 and /3/0/7/0 = 2) names two things.
  for (const leaf of out) {
    const ids = pathIds(leaf.path);
    for (let n = 1; n < ids.length; n++) {
      const above = "/" + ids.slice(0, n).join("/");
      if (seen.has(above)) return refuse(`LwM2M CBOR: ${above} has a value and values below it`);
    }
  }
  return ok(out);
}

/**
 * A payload's values as uplink entries (`[{path, value}]`, the form SenML decodes into): each leaf must name a
 * resource or resource instance within `base` (anywhere when `base` is undefined, as in composite answers) and hold
 * a value, which is typed by the resource's definition (time from tag 1 as seconds, opaque as hex, integers beyond
 * ±2^53 as decimal text, object links checked as `3:0`).
 */
export function decodeLwm2mCborContent(
  bytes: Uint8Array,
  base: ObjectPath | undefined,
  lookup: ResourceLookup = resourceModel,
): Result<ContentEntry[]> {
  const leaves = decodeLwm2mCbor(bytes);
  if (!leaves.ok) return leaves;
  const out: ContentEntry[] = [];
  for (const { path, item } of leaves.value) {
    const at = formatObjectPath(path);
    if (base !== undefined && !isWithin(path, base))
      return refuse(`LwM2M CBOR value ${at} lies outside ${formatObjectPath(base)}`);
    if (pathDepth(path) < 3) return refuse(`LwM2M CBOR value ${at} names no resource`);
    if (item === null) return refuse(`LwM2M CBOR path ${at} has no value`);
    const value = cborItemValue(item, lookup(path.objectId, path.resourceId!)?.type);
    if (!value.ok) return refuse(`LwM2M CBOR value ${at}: ${value.reason}`);
    out.push({ path: at, value: value.value });
  }
  return ok(out);
}

/** The paths of a Read- or Observe-Composite request in LwM2M CBOR: every leaf, each with a null value. */
export function decodeLwm2mCborPaths(bytes: Uint8Array): Result<string[]> {
  const leaves = decodeLwm2mCbor(bytes);
  if (!leaves.ok) return leaves;
  const paths: string[] = [];
  for (const { path, item } of leaves.value) {
    if (item !== null) return refuse(`LwM2M CBOR path list: ${formatObjectPath(path)} has a value, not null`);
    paths.push(formatObjectPath(path));
  }
  return ok(paths);
}

/** The ids of a map key: one unsigned integer or a non-empty array of them, each 0..65535; else why not. */
function keyIds(key: unknown): number[] | string {
  const list = Array.isArray(key) ? (key as unknown[]) : [key];
  if (list.length === 0) return "an empty array names no level";
  const ids: number[] = [];
  for (const id of list) {
    const n = typeof id === "bigint" ? Number(id) : id;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > MAX_PATH_ID)
      return `${describe(id)} is not an id 0..${MAX_PATH_ID}`;
    ids.push(n);
  }
  return ids;
}

function isLeafItem(item: unknown): item is CborLeafItem {
  return (
    item === null ||
    typeof item === "number" ||
    typeof item === "bigint" ||
    typeof item === "string" ||
    typeof item === "boolean" ||
    item instanceof Uint8Array ||
    (item instanceof Date && Number.isFinite(item.getTime()))
  );
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (v === undefined) return "undefined";
  if (Array.isArray(v)) return "an array";
  if (v instanceof Uint8Array) return "bytes";
  if (typeof v === "object") return `a ${(v as { constructor?: { name?: string } }).constructor?.name ?? "object"}`;
  if (typeof v === "string") return JSON.stringify(v);
  return typeof v === "number" || typeof v === "bigint" || typeof v === "boolean" ? String(v) : typeof v;
}

/** A level of the tree being encoded: its children by id, and the encoded item when a value sits here. */
interface Node {
  readonly children: Map<number, Node>;
  leaf?: Uint8Array;
}

const NULL_ITEM = Uint8Array.of(0xf6);

/**
 * Encodes values (full paths) as one LwM2M CBOR map: levels nest as maps with one id per key, except that a chain
 * of levels with one child each becomes one array key (`{[3, 0, 9]: 87}`). Values are written as their type says
 * (floats always as 64-bit floats, time as an integer, opaque as bytes, object links as `3:0` text). A path given
 * twice, or with a value and values below it, is refused.
 */
export function encodeLwm2mCbor(values: readonly Lwm2mCborValue[]): Result<Uint8Array> {
  const root: Node = { children: new Map() };
  for (const { path, value } of values) {
    const ids = pathIds(path);
    const at = "/" + ids.join("/");
    let node = root;
    for (const id of ids) {
      if (node.leaf) return refuse(`${at} lies below a path that has a value`);
      let child = node.children.get(id);
      if (!child) node.children.set(id, (child = { children: new Map() }));
      node = child;
    }
    if (node.leaf || node.children.size > 0) return refuse(`${at} is given twice or has values below it`);
    if (value === null) node.leaf = NULL_ITEM;
    else {
      const item = encodeCborValue(value);
      if (!item.ok) return refuse(`${at}: ${item.reason}`);
      node.leaf = item.value;
    }
  }
  const parts: Uint8Array[] = [];
  const failed = writeMap(root, parts);
  if (failed !== undefined) return refuse(failed);
  return ok(Buffer.concat(parts));
}

function writeMap(node: Node, parts: Uint8Array[]): string | undefined {
  parts.push(mapHeader(node.children.size));
  for (const [id, start] of node.children) {
    const ids = [id];
    let child = start;
    while (!child.leaf && child.children.size === 1) {
      const [next, below] = child.children.entries().next().value!;
      ids.push(next);
      child = below;
    }
    const key = encodeCbor(ids.length === 1 ? ids[0] : ids);
    if (!key.ok) return key.reason;
    parts.push(key.value);
    if (child.leaf) parts.push(child.leaf);
    else {
      const failed = writeMap(child, parts);
      if (failed !== undefined) return failed;
    }
  }
  return undefined;
}

/** The head of a definite-length CBOR map (major type 5) of `size` pairs. */
function mapHeader(size: number): Uint8Array {
  if (size < 24) return Uint8Array.of(0xa0 | size);
  if (size < 0x100) return Uint8Array.of(0xb8, size);
  if (size < 0x10000) return Uint8Array.of(0xb9, size >> 8, size & 0xff);
  const out = new Uint8Array(5);
  out[0] = 0xba;
  new DataView(out.buffer).setUint32(1, size);
  return out;
}
