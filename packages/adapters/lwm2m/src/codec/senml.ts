import { Decoder, Encoder } from "cbor-x";
import { ok, refuse, type Result } from "./result.js";
import { formatObjectLink, parseObjectLink, type ObjectLink } from "./typed-value.js";

/**
 * SenML (RFC 8428) as LwM2M 1.1 uses it (Core V1_1 §7.4: SenML JSON, content format 110; SenML CBOR, 112): an array
 * of records whose names, resolved against the base name, are LwM2M paths. Decoding resolves base name and base
 * time into whole records; encoding writes the base name once. LwM2M adds the object link value `vlo`.
 */

/** A record's value by its field: v number (bigint for a CBOR integer beyond ±2^53), vs, vb, vd bytes, vlo link. */
export type SenmlValue = number | bigint | string | boolean | Uint8Array | ObjectLink;

/** A resolved record: its full name (`/3/0/7/1`), value and time (seconds) if it has one. */
export interface SenmlRecord {
  readonly name: string;
  readonly value: SenmlValue;
  readonly time?: number;
}

/** Limits and context of decoding. */
export interface SenmlOptions {
  /** Largest payload, bytes (default {@link MAX_SENML_BYTES}). */
  readonly maxBytes?: number;
  /** Most records (default {@link MAX_SENML_RECORDS}). */
  readonly maxRecords?: number;
  /**
   * Now, epoch seconds. Given, a resolved time below 2^28 (relative, RFC 8428 §4.5.3: `t: -5` is five seconds ago)
   * is made absolute; without it times are returned as resolved.
   */
  readonly now?: number;
}

/** Default largest SenML payload decoded, bytes. */
export const MAX_SENML_BYTES = 65_536;

/** Default most records in one payload. */
export const MAX_SENML_RECORDS = 4096;

/** Times below this are relative to now (RFC 8428 §4.5.3). */
export const RELATIVE_TIME_LIMIT = 2 ** 28;

/** The CBOR labels of RFC 8428 §6 (Table 4) by field name; `vlo` has no number and is written as text. */
const CBOR_LABELS: Record<string, number> = {
  bver: -1,
  bn: -2,
  bt: -3,
  bu: -4,
  bv: -5,
  bs: -6,
  n: 0,
  u: 1,
  v: 2,
  vs: 3,
  vb: 4,
  s: 5,
  t: 6,
  ut: 7,
  vd: 8,
};
const FIELD_BY_LABEL = new Map(Object.entries(CBOR_LABELS).map(([name, label]) => [label, name]));
const VALUE_FIELDS = ["v", "vs", "vb", "vd", "vlo"] as const;

/** A record's fields by name, before resolution. */
type Fields = Map<string, unknown>;

/** Decodes SenML JSON (content format 110). Never throws: malformed JSON or records are refused with a reason. */
export function decodeSenmlJson(payload: Uint8Array | string, options: SenmlOptions = {}): Result<SenmlRecord[]> {
  const size = typeof payload === "string" ? Buffer.byteLength(payload) : payload.length;
  const maxBytes = options.maxBytes ?? MAX_SENML_BYTES;
  if (size > maxBytes) return refuse(`SenML JSON of ${size} bytes is above the limit of ${maxBytes}`);
  let parsed: unknown;
  try {
    const text = typeof payload === "string" ? payload : new TextDecoder("utf-8", { fatal: true }).decode(payload);
    parsed = JSON.parse(text);
  } catch (err) {
    return refuse(`SenML JSON does not parse: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) return refuse("SenML JSON is not an array of records");
  const records: Fields[] = [];
  for (const [i, item] of parsed.entries()) {
    if (typeof item !== "object" || item === null || Array.isArray(item))
      return refuse(`SenML record ${i} is not an object`);
    const fields: Fields = new Map(Object.entries(item));
    const vd = fields.get("vd");
    if (vd !== undefined) {
      const bytes = typeof vd === "string" ? fromBase64Url(vd) : undefined;
      if (bytes === undefined) return refuse(`SenML record ${i}: vd is not base64url text`);
      fields.set("vd", bytes);
    }
    records.push(fields);
  }
  return resolve(records, options);
}

/** Decodes SenML CBOR (content format 112): an array of maps keyed by the RFC 8428 labels, `vlo` by name. */
export function decodeSenmlCbor(payload: Uint8Array, options: SenmlOptions = {}): Result<SenmlRecord[]> {
  const maxBytes = options.maxBytes ?? MAX_SENML_BYTES;
  if (payload.length > maxBytes)
    return refuse(`SenML CBOR of ${payload.length} bytes is above the limit of ${maxBytes}`);
  const parsed = decodeCbor(payload);
  if (!parsed.ok) return refuse(`SenML CBOR does not parse: ${parsed.reason}`);
  if (!Array.isArray(parsed.value)) return refuse("SenML CBOR is not an array of records");
  const records: Fields[] = [];
  for (const [i, item] of (parsed.value as unknown[]).entries()) {
    if (!(item instanceof Map)) return refuse(`SenML record ${i} is not a map`);
    const fields: Fields = new Map();
    for (const [key, v] of item as Map<unknown, unknown>) {
      const name = typeof key === "number" ? FIELD_BY_LABEL.get(key) : typeof key === "string" ? key : undefined;
      if (typeof key === "number" && name === undefined) continue; // a label this codec does not use (bu, s, …)
      if (name === undefined) return refuse(`SenML record ${i} has a label that is neither a number nor text`);
      // cbor-x gives every 64-bit integer as a bigint: keep bigint only where a number would lose digits.
      const safe = typeof v === "bigint" && v >= -MAX_SAFE && v <= MAX_SAFE;
      fields.set(name, typeof v === "bigint" && (safe || name !== "v") ? Number(v) : v);
    }
    records.push(fields);
  }
  return resolve(records, options);
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const cborDecoder = new Decoder({ mapsAsObjects: false, useRecords: false });

/** Decodes one CBOR data item with cbor-x: maps stay Maps (so integer labels survive), nothing is thrown. */
export function decodeCbor(payload: Uint8Array): Result<unknown> {
  try {
    return ok(cborDecoder.decode(payload));
  } catch (err) {
    return refuse((err as Error).message);
  }
}

function resolve(records: readonly Fields[], options: SenmlOptions): Result<SenmlRecord[]> {
  const maxRecords = options.maxRecords ?? MAX_SENML_RECORDS;
  if (records.length > maxRecords) return refuse(`SenML has ${records.length} records, more than ${maxRecords}`);
  let baseName = "";
  let baseTime: number | undefined;
  let baseValue = 0;
  const out: SenmlRecord[] = [];
  for (const [i, fields] of records.entries()) {
    const at = `SenML record ${i}`;
    for (const key of fields.keys())
      if (key.endsWith("_")) return refuse(`${at} has field ${key}, which must be understood and is not`);
    const checked = checkTypes(fields);
    if (checked !== undefined) return refuse(`${at}: ${checked}`);
    if (fields.has("bn")) baseName = fields.get("bn") as string;
    if (fields.has("bt")) baseTime = fields.get("bt") as number;
    if (fields.has("bv")) baseValue = fields.get("bv") as number;
    const name = baseName + ((fields.get("n") as string | undefined) ?? "");
    if (name === "") return refuse(`${at} has no name (neither bn nor n)`);
    const present = VALUE_FIELDS.filter((f) => fields.has(f));
    if (present.length === 0) return refuse(`${at} (${name}) has no value`);
    if (present.length > 1) return refuse(`${at} (${name}) has several values: ${present.join(", ")}`);
    let value = fields.get(present[0]!) as SenmlValue;
    if (present[0] === "vlo") {
      const link = parseObjectLink(value as string);
      if (!link.ok) return refuse(`${at} (${name}): ${link.reason}`);
      value = link.value;
    }
    if (present[0] === "v" && baseValue !== 0) value = Number(value) + baseValue;
    const t = fields.get("t") as number | undefined;
    const record: { -readonly [K in keyof SenmlRecord]: SenmlRecord[K] } = { name, value };
    if (t !== undefined || baseTime !== undefined) {
      const time = (baseTime ?? 0) + (t ?? 0);
      record.time = options.now !== undefined && time < RELATIVE_TIME_LIMIT ? options.now + time : time;
    }
    out.push(record);
  }
  return ok(out);
}

const TYPES = new Map<string, (v: unknown) => boolean>(
  Object.entries({
    bn: (v) => typeof v === "string",
    n: (v) => typeof v === "string",
    bt: (v) => typeof v === "number" && Number.isFinite(v),
    t: (v) => typeof v === "number" && Number.isFinite(v),
    bv: (v) => typeof v === "number" && Number.isFinite(v),
    v: (v) => (typeof v === "number" && Number.isFinite(v)) || typeof v === "bigint",
    vs: (v) => typeof v === "string",
    vb: (v) => typeof v === "boolean",
    vd: (v) => v instanceof Uint8Array,
    vlo: (v) => typeof v === "string",
  } satisfies Record<string, (v: unknown) => boolean>),
);

function checkTypes(fields: Fields): string | undefined {
  for (const [key, v] of fields) {
    const check = TYPES.get(key);
    if (check !== undefined && !check(v)) return `field ${key} has the wrong type (${describe(v)})`;
  }
  return undefined;
}

function describe(v: unknown): string {
  if (v instanceof Uint8Array) return "bytes";
  if (v === null) return "null";
  return Array.isArray(v) ? "array" : typeof v;
}

function fromBase64Url(text: string): Uint8Array | undefined {
  const body = text.replace(/={1,2}$/, "");
  if (!/^[A-Za-z0-9_\-+/]*$/.test(body) || body.length % 4 === 1) return undefined;
  return new Uint8Array(Buffer.from(body.replace(/-/g, "+").replace(/_/g, "/"), "base64"));
}

/**
 * Checks records for encoding and splits each name against the base name: with `baseName`, every name must start
 * with it; the first record carries `bn`, each record's `n` is the rest (left out when empty).
 */
function prepare(
  records: readonly SenmlRecord[],
  baseName: string | undefined,
): Result<[string | undefined, string][]> {
  const names: [string | undefined, string][] = [];
  for (const [i, r] of records.entries()) {
    if (baseName !== undefined && !r.name.startsWith(baseName))
      return refuse(`record ${i} name "${r.name}" is not under the base name "${baseName}"`);
    if (typeof r.value === "number" && !Number.isFinite(r.value))
      return refuse(`record ${i} (${r.name}) value ${r.value} cannot be written in SenML`);
    if (r.time !== undefined && !Number.isFinite(r.time)) return refuse(`record ${i} (${r.name}) time is not finite`);
    const rest = baseName === undefined ? r.name : r.name.slice(baseName.length);
    if (baseName === undefined && rest === "") return refuse(`record ${i} has no name`);
    names.push([i === 0 ? baseName : undefined, rest]);
  }
  return ok(names);
}

/** Encodes SenML JSON: compact, fields in the order bn, n, value, t; bytes as base64url without padding. */
export function encodeSenmlJson(records: readonly SenmlRecord[], baseName?: string): Result<Uint8Array> {
  const names = prepare(records, baseName);
  if (!names.ok) return names;
  const parts = records.map((r, i) => {
    const [bn, n] = names.value[i]!;
    const fields: string[] = [];
    if (bn !== undefined) fields.push(`"bn":${JSON.stringify(bn)}`);
    if (n !== "") fields.push(`"n":${JSON.stringify(n)}`);
    const [key, v] = valueField(r.value);
    fields.push(`"${key}":${typeof v === "bigint" ? v.toString() : JSON.stringify(v)}`);
    if (r.time !== undefined) fields.push(`"t":${JSON.stringify(r.time)}`);
    return `{${fields.join(",")}}`;
  });
  return ok(new TextEncoder().encode(`[${parts.join(",")}]`));
}

const cborEncoder = new Encoder({ mapsAsObjects: false, useRecords: false, variableMapSize: true });

/** Encodes SenML CBOR with the RFC 8428 integer labels (and `vlo` as text), fields in the order bn, n, value, t. */
export function encodeSenmlCbor(records: readonly SenmlRecord[], baseName?: string): Result<Uint8Array> {
  const names = prepare(records, baseName);
  if (!names.ok) return names;
  const items = records.map((r, i) => {
    const [bn, n] = names.value[i]!;
    const map = new Map<number | string, unknown>();
    if (bn !== undefined) map.set(CBOR_LABELS.bn!, bn);
    if (n !== "") map.set(CBOR_LABELS.n!, n);
    const [key, v] = valueField(r.value, true);
    map.set(key === "vlo" ? key : CBOR_LABELS[key]!, cborNumber(v));
    if (r.time !== undefined) map.set(CBOR_LABELS.t!, cborNumber(r.time));
    return map;
  });
  return encodeCbor(items);
}

/** Encodes one CBOR data item with cbor-x; Maps keep their key order and integer keys. */
export function encodeCbor(item: unknown): Result<Uint8Array> {
  try {
    return ok(new Uint8Array(cborEncoder.encode(item)));
  } catch (err) {
    return refuse(`CBOR encoding failed: ${(err as Error).message}`);
  }
}

/** A whole number beyond 32 bits as a bigint, which cbor-x writes as a CBOR integer rather than a float. */
export function cborNumber(v: unknown): unknown {
  return typeof v === "number" && Number.isSafeInteger(v) && Math.abs(v) >= 2 ** 32 ? BigInt(v) : v;
}

function valueField(value: SenmlValue, cbor = false): [(typeof VALUE_FIELDS)[number], unknown] {
  if (typeof value === "number" || typeof value === "bigint") return ["v", value];
  if (typeof value === "string") return ["vs", value];
  if (typeof value === "boolean") return ["vb", value];
  if (value instanceof Uint8Array) return ["vd", cbor ? Buffer.from(value) : Buffer.from(value).toString("base64url")];
  return ["vlo", formatObjectLink(value)];
}
