import { ok, refuse, type Result } from "./result.js";
import {
  MAX_SENML_BYTES,
  MAX_SENML_RECORDS,
  RELATIVE_TIME_LIMIT,
  type SenmlOptions,
  type SenmlRecord,
} from "./senml.js";
import { formatObjectLink, parseObjectLink } from "./typed-value.js";

/**
 * The OMA LwM2M JSON format, content format 11543 (OMA-TS-LightweightM2M-V1_0 §6.4.4; kept in Core V1_1 for 1.0
 * clients): `{"bn": "/3/0/", "bt": …, "e": [{"n": "0", "sv": "…"}, {"n": "9", "v": 100}, …]}` with values `v`
 * (number), `bv` (boolean), `sv` (string; opaque as base64) and `ov` (object link `3:0`). It is not SenML: `bv`
 * here is a boolean value, not a base value. Records come out as {@link SenmlRecord}s, sharing the SenML path.
 */

const NUMBER_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const VALUE_FIELDS = ["v", "bv", "sv", "ov"] as const;

/**
 * Decodes OMA LwM2M JSON. A name is `bn` + `n`; without `bn` it is `n` under `basePath` (the request's path), or
 * `basePath` itself when `n` is empty too. Time is `bt` + `t`, made absolute from `options.now` when below 2^28.
 * `v` given as a numeric string (as the 1.0 candidate drafts printed it) is read as the number.
 */
export function decodeLwm2mJson(
  payload: Uint8Array | string,
  basePath: string,
  options: SenmlOptions = {},
): Result<SenmlRecord[]> {
  const size = typeof payload === "string" ? Buffer.byteLength(payload) : payload.length;
  const maxBytes = options.maxBytes ?? MAX_SENML_BYTES;
  if (size > maxBytes) return refuse(`LwM2M JSON of ${size} bytes is above the limit of ${maxBytes}`);
  let doc: unknown;
  try {
    doc = JSON.parse(typeof payload === "string" ? payload : new TextDecoder("utf-8", { fatal: true }).decode(payload));
  } catch (err) {
    return refuse(`LwM2M JSON does not parse: ${(err as Error).message}`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return refuse("LwM2M JSON is not an object");
  const { bn, bt, e } = doc as Record<string, unknown>;
  if (bn !== undefined && typeof bn !== "string") return refuse("LwM2M JSON bn is not a string");
  if (bt !== undefined && (typeof bt !== "number" || !Number.isFinite(bt)))
    return refuse("LwM2M JSON bt is not a number");
  if (!Array.isArray(e)) return refuse("LwM2M JSON has no resource array e");
  const maxRecords = options.maxRecords ?? MAX_SENML_RECORDS;
  if (e.length > maxRecords) return refuse(`LwM2M JSON has ${e.length} records, more than ${maxRecords}`);
  const out: SenmlRecord[] = [];
  for (const [i, item] of (e as unknown[]).entries()) {
    const at = `LwM2M JSON record ${i}`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) return refuse(`${at} is not an object`);
    const r = item as Record<string, unknown>;
    if (r.n !== undefined && typeof r.n !== "string") return refuse(`${at}: n is not a string`);
    const n = r.n ?? "";
    const name = bn !== undefined ? bn + n : n === "" ? basePath : `${basePath}/${n}`;
    const present = VALUE_FIELDS.filter((f) => r[f] !== undefined);
    if (present.length !== 1)
      return refuse(
        `${at} (${name}) has ${present.length === 0 ? "no value" : `several values: ${present.join(", ")}`}`,
      );
    const field = present[0]!;
    const raw = r[field];
    let value: SenmlRecord["value"];
    if (field === "v") {
      const num = typeof raw === "string" && NUMBER_TEXT.test(raw) ? Number(raw) : raw;
      if (typeof num !== "number" || !Number.isFinite(num)) return refuse(`${at} (${name}): v is not a number`);
      value = num;
    } else if (field === "bv") {
      if (typeof raw !== "boolean") return refuse(`${at} (${name}): bv is not a boolean`);
      value = raw;
    } else if (field === "sv") {
      if (typeof raw !== "string") return refuse(`${at} (${name}): sv is not a string`);
      value = raw;
    } else {
      const link = typeof raw === "string" ? parseObjectLink(raw) : refuse("ov is not a string");
      if (!link.ok) return refuse(`${at} (${name}): ${link.reason}`);
      value = link.value;
    }
    if (r.t !== undefined && (typeof r.t !== "number" || !Number.isFinite(r.t)))
      return refuse(`${at} (${name}): t is not a number`);
    const record: { -readonly [K in keyof SenmlRecord]: SenmlRecord[K] } = { name, value };
    if (r.t !== undefined || bt !== undefined) {
      const time = (bt ?? 0) + (r.t ?? 0);
      record.time = options.now !== undefined && time < RELATIVE_TIME_LIMIT ? options.now + time : time;
    }
    out.push(record);
  }
  return ok(out);
}

/**
 * Encodes OMA LwM2M JSON: `bn` is `baseName`, each `n` the rest of the record's name (left out when empty); bytes go
 * as base64 in `sv`, as the format has no bytes value.
 */
export function encodeLwm2mJson(records: readonly SenmlRecord[], baseName: string): Result<Uint8Array> {
  const entries: string[] = [];
  for (const [i, r] of records.entries()) {
    if (!r.name.startsWith(baseName))
      return refuse(`record ${i} name "${r.name}" is not under the base name "${baseName}"`);
    const fields: string[] = [];
    const n = r.name.slice(baseName.length);
    if (n !== "") fields.push(`"n":${JSON.stringify(n)}`);
    const v = r.value;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return refuse(`record ${i} (${r.name}) value ${v} cannot be written in JSON`);
      fields.push(`"v":${JSON.stringify(v)}`);
    } else if (typeof v === "bigint") fields.push(`"v":${v.toString()}`);
    else if (typeof v === "boolean") fields.push(`"bv":${v}`);
    else if (typeof v === "string") fields.push(`"sv":${JSON.stringify(v)}`);
    else if (v instanceof Uint8Array) fields.push(`"sv":"${Buffer.from(v).toString("base64")}"`);
    else fields.push(`"ov":"${formatObjectLink(v)}"`);
    if (r.time !== undefined) fields.push(`"t":${JSON.stringify(r.time)}`);
    entries.push(`{${fields.join(",")}}`);
  }
  return ok(new TextEncoder().encode(`{"bn":${JSON.stringify(baseName)},"e":[${entries.join(",")}]}`));
}
