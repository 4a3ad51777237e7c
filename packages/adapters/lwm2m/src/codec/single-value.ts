import { ok, refuse, type Result } from "./result.js";
import { cborNumber, decodeCbor, encodeCbor } from "./senml.js";
import {
  formatObjectLink,
  integerInRange,
  parseObjectLink,
  toContentValue,
  type ContentValue,
  type ResourceType,
  type TypedValue,
} from "./typed-value.js";

/**
 * The formats that carry one resource value: plain text (0, OMA-TS-LightweightM2M-V1_0 §6.4.1), opaque (42, §6.4.2)
 * and, in 1.1, a single CBOR item (60, Core V1_1 §7.4). Text and CBOR say little about the type, so decoding takes
 * the resource's type when the object table knows it; a value that does not read as that type is kept as text
 * (plain text) rather than refused, so a device's odd answer still reaches the uplink.
 */

const INTEGER = /^-?(0|[1-9]\d*)$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Reads a plain-text value: integers (to 64 bits) and time as numbers (beyond ±2^53 as decimal strings), floats as
 * numbers, booleans from `0`/`1`, object links as `3:0`, opaque from base64 (1.1) to hex; strings, unknown types,
 * and text that does not read as its type stay the text. Invalid UTF-8 is refused.
 */
export function decodePlainText(bytes: Uint8Array, type: ResourceType | undefined): Result<ContentValue> {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return refuse("plain-text value is not valid UTF-8");
  }
  switch (type) {
    case "integer":
    case "unsignedInteger":
    case "time":
      if (INTEGER.test(text) && integerInRange(BigInt(text), type === "unsignedInteger" ? type : "integer"))
        return ok(toContentValue({ type: "integer", value: BigInt(text) }));
      return ok(text);
    case "float":
      return ok(DECIMAL.test(text) ? Number(text) : text);
    case "boolean":
      return ok(text === "1" ? true : text === "0" ? false : text);
    case "opaque":
      return ok(BASE64.test(text) ? Buffer.from(text, "base64").toString("hex") : text);
    default:
      return ok(text);
  }
}

/**
 * Writes a value as plain text: integers and time in decimal, floats in JavaScript's shortest exact form, booleans
 * `1`/`0`, object links `3:0`, opaque as base64 (Core V1_1 §7.4, plain text); non-finite floats are refused.
 */
export function encodePlainText(typed: TypedValue): Result<Uint8Array> {
  let text: string;
  switch (typed.type) {
    case "integer":
    case "unsignedInteger":
      text = typed.value.toString();
      break;
    case "float":
      if (!Number.isFinite(typed.value)) return refuse(`float ${typed.value} cannot be written as text`);
      text = String(typed.value);
      break;
    case "time":
      text = String(typed.value);
      break;
    case "boolean":
      text = typed.value ? "1" : "0";
      break;
    case "objlnk":
      text = formatObjectLink(typed.value);
      break;
    case "opaque":
      text = Buffer.from(typed.value).toString("base64");
      break;
    default:
      text = typed.value;
  }
  return ok(new TextEncoder().encode(text));
}

/** An opaque value in an uplink: its bytes as lowercase hex. */
export function decodeOpaque(bytes: Uint8Array): ContentValue {
  return Buffer.from(bytes).toString("hex");
}

/** The bytes of an opaque write; only opaque values may be sent as application/octet-stream. */
export function encodeOpaque(typed: TypedValue): Result<Uint8Array> {
  return typed.type === "opaque"
    ? ok(Uint8Array.from(typed.value))
    : refuse(`${typed.type} values cannot be sent as opaque`);
}

/**
 * Reads one CBOR item as a resource value: integers (bigint beyond ±2^53 as decimal strings), floats, booleans,
 * text, byte strings (hex), and epoch time (tag 1) as seconds. Arrays, maps, null and other tags are refused.
 */
export function decodeCborValue(bytes: Uint8Array, type: ResourceType | undefined): Result<ContentValue> {
  const item = decodeCbor(bytes);
  if (!item.ok) return refuse(`CBOR value does not parse: ${item.reason}`);
  return cborItemValue(item.value, type);
}

/**
 * One decoded CBOR item as a resource value (application/cbor and each value of LwM2M CBOR): as
 * {@link decodeCborValue} says, with a boolean resource also taking 0 and 1.
 */
export function cborItemValue(v: unknown, type: ResourceType | undefined): Result<ContentValue> {
  if (type === "boolean" && (v === 0 || v === 1)) return ok(v === 1);
  if (typeof v === "number") return ok(Number.isFinite(v) ? v : String(v));
  if (typeof v === "bigint") return ok(toContentValue({ type: "integer", value: v }));
  if (typeof v === "string") {
    if (type === "objlnk" && !parseObjectLink(v).ok)
      return refuse(`CBOR object link "${v}" is not objectId:instanceId`);
    return ok(v);
  }
  if (typeof v === "boolean") return ok(v);
  if (v instanceof Uint8Array) return ok(decodeOpaque(v));
  if (v instanceof Date && Number.isFinite(v.getTime())) return ok(Math.floor(v.getTime() / 1000));
  return refuse("CBOR item is not a single resource value");
}

/**
 * Writes one CBOR item: integers and time as CBOR integers, floats always as a 64-bit float (so 7.0 stays a float
 * for a float resource), booleans, text, byte strings for opaque, object links as text `3:0`.
 */
export function encodeCborValue(typed: TypedValue): Result<Uint8Array> {
  switch (typed.type) {
    case "integer":
    case "unsignedInteger": {
      if (!integerInRange(typed.value, typed.type)) return refuse(`${typed.type} ${typed.value} is out of range`);
      const n = Number(typed.value);
      return encodeCbor(Number.isSafeInteger(n) ? cborNumber(n) : typed.value);
    }
    case "float": {
      const out = new Uint8Array(9);
      out[0] = 0xfb;
      new DataView(out.buffer).setFloat64(1, typed.value);
      return ok(out);
    }
    case "time":
      if (!Number.isSafeInteger(typed.value)) return refuse(`time ${typed.value} is not whole seconds within ±2^53`);
      return encodeCbor(cborNumber(typed.value));
    case "opaque":
      return encodeCbor(Buffer.from(typed.value));
    case "objlnk":
      return encodeCbor(formatObjectLink(typed.value));
    default:
      return encodeCbor(typed.value);
  }
}
