import { CONTENT_FORMAT, contentFormatName } from "./content-format.js";
import { formatLinkFormat, parseLinkFormat } from "./link-format.js";
import { decodeLwm2mCborContent, encodeLwm2mCbor } from "./lwm2m-cbor.js";
import { decodeLwm2mJson, encodeLwm2mJson } from "./lwm2m-json.js";
import { formatObjectPath, isWithin, parseObjectPath, pathDepth, type ObjectPath } from "./object-path.js";
import { resourceModel, type ResourceLookup } from "./objects.js";
import { ok, refuse, type Result } from "./result.js";
import {
  decodeSenmlCbor,
  decodeSenmlJson,
  encodeSenmlCbor,
  encodeSenmlJson,
  type SenmlRecord,
  type SenmlValue,
} from "./senml.js";
import {
  decodeCborValue,
  decodeOpaque,
  decodePlainText,
  encodeCborValue,
  encodeOpaque,
  encodePlainText,
} from "./single-value.js";
import {
  decodeTlv,
  encodeTlv,
  type Tlv,
  type TlvMultipleResource,
  type TlvResource,
  type TlvResourceInstance,
} from "./tlv.js";
import { encodeTlvValue, readTlvValue } from "./tlv-value.js";
import { formatObjectLink, toContentValue, type ContentEntry, type TypedValue } from "./typed-value.js";

/**
 * Any LwM2M payload to and from the flat list `[{path, value}]` that uplinks (`up/resp`, `up/notify`) carry. The
 * payload is read relative to the path it answers (the request's or the observation's), so a TLV of bare resources
 * gets its object and instance from there.
 */

/** Options of {@link decodeContent}. */
export interface DecodeContentOptions {
  /** Largest payload, bytes (default {@link MAX_CONTENT_BYTES}). */
  readonly maxBytes?: number;
  /** Resource definitions to type TLV, text and CBOR values with (default: the built-in table of `objects.ts`). */
  readonly lookup?: ResourceLookup;
  /** Now, epoch seconds: makes SenML/JSON times relative to now absolute (see `SenmlOptions.now`). */
  readonly now?: number;
}

/** Default largest payload decoded, bytes: 64 KiB. */
export const MAX_CONTENT_BYTES = 65_536;

/** One value to write: its full path (at or below the request path) and typed value. */
export interface WriteValue {
  readonly path: string;
  readonly value: TypedValue;
}

/**
 * Decodes a payload of `format` answering `basePath` into entries with full paths. TLV, text and CBOR values are
 * typed by the resource definitions; values of unknown resources are kept as hex (TLV) or text. SenML and JSON
 * names and LwM2M CBOR paths must lie within `basePath` and name resources or resource instances. A Discover
 * answer (link format) comes out as one entry per link: the link's URI as path and its attributes as text
 * (`pmin=10;pmax=60`, or "").
 */
export function decodeContent(
  format: number,
  bytes: Uint8Array,
  basePath: string,
  options: DecodeContentOptions = {},
): Result<ContentEntry[]> {
  const parsed = parseObjectPath(basePath);
  if (!parsed.ok) return parsed;
  const base = parsed.value;
  const maxBytes = options.maxBytes ?? MAX_CONTENT_BYTES;
  const name = contentFormatName(format);
  if (bytes.length > maxBytes)
    return refuse(`${name} payload of ${bytes.length} bytes is above the limit of ${maxBytes}`);
  const lookup = options.lookup ?? resourceModel;
  const single = (read: () => Result<ContentEntry["value"]>): Result<ContentEntry[]> => {
    if (pathDepth(base) < 3) return refuse(`${name} carries one resource value, but ${basePath} is no resource`);
    const value = read();
    return value.ok ? ok([{ path: formatObjectPath(base), value: value.value }]) : value;
  };
  const type = base.resourceId === undefined ? undefined : lookup(base.objectId, base.resourceId)?.type;
  const limits = { maxBytes, ...(options.now === undefined ? {} : { now: options.now }) };
  switch (format) {
    case CONTENT_FORMAT.text:
      return single(() => decodePlainText(bytes, type));
    case CONTENT_FORMAT.opaque:
      return single(() => ok(decodeOpaque(bytes)));
    case CONTENT_FORMAT.cbor:
      return single(() => decodeCborValue(bytes, type));
    case CONTENT_FORMAT.tlv:
    case CONTENT_FORMAT.tlvLegacy: {
      const tlvs = decodeTlv(bytes, maxBytes);
      return tlvs.ok ? tlvEntries(base, tlvs.value, lookup) : tlvs;
    }
    case CONTENT_FORMAT.senmlJson:
      return recordEntries(base, decodeSenmlJson(bytes, limits), lookup, false);
    case CONTENT_FORMAT.senmlCbor:
      return recordEntries(base, decodeSenmlCbor(bytes, limits), lookup, false);
    case CONTENT_FORMAT.lwm2mJson:
    case CONTENT_FORMAT.lwm2mJsonLegacy:
      return recordEntries(base, decodeLwm2mJson(bytes, formatObjectPath(base), limits), lookup, true);
    case CONTENT_FORMAT.linkFormat:
      return linkEntries(bytes, maxBytes);
    case CONTENT_FORMAT.lwm2mCbor:
      return decodeLwm2mCborContent(bytes, base, lookup);
    default:
      return refuse(`${name} is not a format LwM2M payloads come in`);
  }
}

function linkEntries(bytes: Uint8Array, maxBytes: number): Result<ContentEntry[]> {
  const links = parseLinkFormat(bytes, { maxBytes });
  if (!links.ok) return links;
  return ok(
    links.value.map((link) => {
      const text = formatLinkFormat([{ uri: link.uri, params: link.params }]);
      return { path: link.uri, value: text.ok ? text.value.slice(link.uri.length + 3) : "" };
    }),
  );
}

/** Typed uplink value of TLV bytes, or the bytes as hex when the resource's type is unknown or they do not fit it. */
function tlvValue(bytes: Uint8Array, objectId: number, resourceId: number, lookup: ResourceLookup) {
  const type = lookup(objectId, resourceId)?.type;
  const typed = type === undefined || type === "none" ? undefined : readTlvValue(bytes, type);
  return typed?.ok ? toContentValue(typed.value) : decodeOpaque(bytes);
}

function tlvEntries(base: ObjectPath, tlvs: readonly Tlv[], lookup: ResourceLookup): Result<ContentEntry[]> {
  const out: ContentEntry[] = [];
  const { objectId, instanceId, resourceId, resourceInstanceId } = base;
  const emit = (i: number, r: number, ri: number | undefined, bytes: Uint8Array) =>
    out.push({
      path: `/${objectId}/${i}/${r}${ri === undefined ? "" : `/${ri}`}`,
      value: tlvValue(bytes, objectId, r, lookup),
    });
  const emitResources = (i: number, resources: readonly (TlvResource | TlvMultipleResource)[]) => {
    for (const r of resources)
      if (r.kind === "resource") emit(i, r.id, undefined, r.value);
      else for (const ri of r.instances) emit(i, r.id, ri.id, ri.value);
  };
  const kinds = new Set(tlvs.map((t) => t.kind));
  const [first] = tlvs;
  if (first === undefined) return ok(out);
  if (instanceId === undefined) {
    if (!kinds.has("objectInstance")) return refuse(`TLV answering object /${objectId} holds no object instances`);
    for (const t of tlvs) if (t.kind === "objectInstance") emitResources(t.id, t.resources);
    return ok(out);
  }
  if (resourceId === undefined) {
    if (first.kind === "objectInstance") {
      if (tlvs.length > 1 || first.id !== instanceId)
        return refuse(
          `TLV answering /${objectId}/${instanceId} holds instance ${first.id}${tlvs.length > 1 ? " and more" : ""}`,
        );
      emitResources(first.id, first.resources);
    } else if (first.kind === "resourceInstance") {
      return refuse(`TLV answering /${objectId}/${instanceId} holds resource instances without their resource`);
    } else emitResources(instanceId, tlvs as (TlvResource | TlvMultipleResource)[]);
    return ok(out);
  }
  if (resourceInstanceId === undefined) {
    if (first.kind === "resourceInstance") {
      for (const ri of tlvs as TlvResourceInstance[]) emit(instanceId, resourceId, ri.id, ri.value);
      return ok(out);
    }
    if (tlvs.length > 1 || first.kind === "objectInstance" || first.id !== resourceId)
      return refuse(`TLV answering resource ${formatObjectPath(base)} holds other entries`);
    emitResources(instanceId, [first]);
    return ok(out);
  }
  if (tlvs.length > 1 || first.kind !== "resourceInstance" || first.id !== resourceInstanceId)
    return refuse(`TLV answering resource instance ${formatObjectPath(base)} holds other entries`);
  emit(instanceId, resourceId, resourceInstanceId, first.value);
  return ok(out);
}

function recordEntries(
  base: ObjectPath,
  records: Result<SenmlRecord[]>,
  lookup: ResourceLookup,
  opaqueAsBase64: boolean,
): Result<ContentEntry[]> {
  if (!records.ok) return records;
  const out: ContentEntry[] = [];
  for (const record of records.value) {
    // A single-resource record named `bn` = "/3/0/9/" with no n: the trailing slash is not part of the path.
    const name = record.name.length > 1 && record.name.endsWith("/") ? record.name.slice(0, -1) : record.name;
    const path = parseObjectPath(name);
    if (!path.ok) return refuse(`record name "${record.name}": ${path.reason}`);
    if (!isWithin(path.value, base)) return refuse(`record ${name} lies outside ${formatObjectPath(base)}`);
    if (pathDepth(path.value) < 3) return refuse(`record ${name} names no resource`);
    const type = lookup(path.value.objectId, path.value.resourceId!)?.type;
    const value = recordValue(record.value, opaqueAsBase64 && type === "opaque");
    out.push({
      path: formatObjectPath(path.value),
      value,
      ...(record.time === undefined ? {} : { time: record.time }),
    });
  }
  return ok(out);
}

/** A SenML record's value as an uplink carries it (opaque text as base64 when `base64`). */
export function recordValue(value: SenmlValue, base64: boolean): ContentEntry["value"] {
  if (typeof value === "bigint") return toContentValue({ type: "integer", value });
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "string") {
    const bytes = base64 && /^[A-Za-z0-9+/]*={0,2}$/.test(value) ? Buffer.from(value, "base64") : undefined;
    return bytes === undefined ? value : decodeOpaque(bytes);
  }
  if (typeof value === "boolean") return value;
  if (value instanceof Uint8Array) return decodeOpaque(value);
  return formatObjectLink(value);
}

/**
 * Encodes values to write at `basePath` in `format`. Text, opaque and CBOR carry exactly one value at `basePath`
 * (a resource or resource instance). TLV nests what `basePath` implies: resource instances under a multiple resource,
 * resources under an instance, instances under an object (Create). SenML and OMA JSON write `bn` once; LwM2M CBOR
 * nests the full paths. Values outside
 * `basePath`, above resource level or repeated are refused, as is every format a write cannot use.
 */
export function encodeWrite(format: number, basePath: string, values: readonly WriteValue[]): Result<Uint8Array> {
  const parsed = parseObjectPath(basePath);
  if (!parsed.ok) return parsed;
  const base = parsed.value;
  const paths: ObjectPath[] = [];
  const seen = new Set<string>();
  for (const v of values) {
    const path = parseObjectPath(v.path);
    if (!path.ok) return path;
    const text = formatObjectPath(path.value);
    if (!isWithin(path.value, base)) return refuse(`value for ${text} lies outside ${formatObjectPath(base)}`);
    if (pathDepth(path.value) < 3) return refuse(`value for ${text} names no resource`);
    if (seen.has(text)) return refuse(`${text} is given twice`);
    seen.add(text);
    paths.push(path.value);
  }
  if (values.length === 0) return refuse("nothing to write");
  const name = contentFormatName(format);
  const single = (encode: (v: TypedValue) => Result<Uint8Array>): Result<Uint8Array> => {
    if (values.length !== 1 || pathDepth(base) < 3 || seen.values().next().value !== formatObjectPath(base))
      return refuse(`${name} carries exactly one value, at the resource ${basePath} itself`);
    return encode(values[0]!.value);
  };
  const baseText = formatObjectPath(base);
  const records = (): SenmlRecord[] =>
    values.map((v, i) => ({ name: formatObjectPath(paths[i]!), value: senmlValue(v.value) }));
  const baseName = values.length === 1 && seen.has(baseText) ? baseText : `${baseText}/`;
  switch (format) {
    case CONTENT_FORMAT.text:
      return single(encodePlainText);
    case CONTENT_FORMAT.opaque:
      return single(encodeOpaque);
    case CONTENT_FORMAT.cbor:
      return single(encodeCborValue);
    case CONTENT_FORMAT.tlv:
    case CONTENT_FORMAT.tlvLegacy:
      return writeTlv(base, values, paths);
    case CONTENT_FORMAT.senmlJson:
      return encodeSenmlJson(records(), baseName);
    case CONTENT_FORMAT.senmlCbor:
      return encodeSenmlCbor(records(), baseName);
    case CONTENT_FORMAT.lwm2mJson:
    case CONTENT_FORMAT.lwm2mJsonLegacy:
      return encodeLwm2mJson(records(), baseName);
    case CONTENT_FORMAT.lwm2mCbor:
      return encodeLwm2mCbor(values.map((v, i) => ({ path: paths[i]!, value: v.value })));
    default:
      return refuse(`${name} cannot carry a write`);
  }
}

/** A typed value as a SenML record's value: integers as numbers where exact. */
export function senmlValue(typed: TypedValue): SenmlValue {
  switch (typed.type) {
    case "integer":
    case "unsignedInteger": {
      const n = Number(typed.value);
      return Number.isSafeInteger(n) ? n : typed.value;
    }
    default:
      return typed.value;
  }
}

function writeTlv(base: ObjectPath, values: readonly WriteValue[], paths: readonly ObjectPath[]): Result<Uint8Array> {
  const items: { path: ObjectPath; bytes: Uint8Array }[] = [];
  for (const [i, v] of values.entries()) {
    const bytes = encodeTlvValue(v.value);
    if (!bytes.ok) return refuse(`${formatObjectPath(paths[i]!)}: ${bytes.reason}`);
    items.push({ path: paths[i]!, bytes: bytes.value });
  }
  const depth = pathDepth(base);
  if (depth === 4)
    return encodeTlv([{ kind: "resourceInstance", id: base.resourceInstanceId!, value: items[0]!.bytes }]);
  if (depth >= 2) {
    // At a resource all values share one resource id, so this is one resource or one multiple resource.
    const resources = groupResources(items);
    return resources.ok ? encodeTlv(resources.value) : resources;
  }
  const instances = new Map<number, typeof items>();
  for (const item of items)
    instances.set(item.path.instanceId!, [...(instances.get(item.path.instanceId!) ?? []), item]);
  const tlvs: Tlv[] = [];
  for (const [id, group] of instances) {
    const resources = groupResources(group);
    if (!resources.ok) return resources;
    tlvs.push({ kind: "objectInstance", id, resources: resources.value });
  }
  return encodeTlv(tlvs);
}

/** Resources of one instance: a value at `/o/i/r` is a resource, values at `/o/i/r/k` its multiple resource. */
function groupResources(
  items: readonly { path: ObjectPath; bytes: Uint8Array }[],
): Result<(TlvResource | TlvMultipleResource)[]> {
  const groups = new Map<number, { path: ObjectPath; bytes: Uint8Array }[]>();
  for (const item of items) groups.set(item.path.resourceId!, [...(groups.get(item.path.resourceId!) ?? []), item]);
  const out: (TlvResource | TlvMultipleResource)[] = [];
  for (const [id, group] of groups) {
    const singles = group.filter((g) => g.path.resourceInstanceId === undefined);
    if (singles.length > 0 && group.length > 1)
      return refuse(`resource ${formatObjectPath(singles[0]!.path)} is given both as one value and as instances`);
    if (singles.length === 1) out.push({ kind: "resource", id, value: singles[0]!.bytes });
    else
      out.push({
        kind: "multipleResource",
        id,
        instances: group.map((g) => ({ kind: "resourceInstance", id: g.path.resourceInstanceId!, value: g.bytes })),
      });
  }
  return ok(out);
}
