import { ok, refuse, type Result } from "./result.js";

/**
 * Resource values with their LwM2M data type (OMA-TS-LightweightM2M-V1_0 Appendix C, Core V1_1 Appendix C), and the
 * JSON-friendly form they take in uplinks. Every codec encodes from and decodes towards these.
 */

/** The data types of LwM2M resources; `none` is an Execute-only resource, which has no value. */
export type ResourceType =
  "string" | "integer" | "unsignedInteger" | "float" | "boolean" | "opaque" | "time" | "objlnk" | "corelnk" | "none";

/** An Object Link value: a reference to object instance `objectId:instanceId` (each 0..65535). */
export interface ObjectLink {
  readonly objectId: number;
  readonly instanceId: number;
}

/**
 * A value with its type. Integers are bigint so 64-bit values stay exact (signed -2^63..2^63-1, unsigned
 * 0..2^64-1); time is whole seconds since 1970-01-01 UTC; opaque is bytes; corelnk is link-format text.
 */
export type TypedValue =
  | { readonly type: "string"; readonly value: string }
  | { readonly type: "integer"; readonly value: bigint }
  | { readonly type: "unsignedInteger"; readonly value: bigint }
  | { readonly type: "float"; readonly value: number }
  | { readonly type: "boolean"; readonly value: boolean }
  | { readonly type: "opaque"; readonly value: Uint8Array }
  | { readonly type: "time"; readonly value: number }
  | { readonly type: "objlnk"; readonly value: ObjectLink }
  | { readonly type: "corelnk"; readonly value: string };

/**
 * A value as an uplink carries it in `content: [{path, value}]`: numbers, strings and booleans only. Integers
 * beyond ±2^53 become decimal strings, opaque bytes (and values whose type is unknown) lowercase hex, object links
 * `"3:0"`, non-finite floats `"NaN"`, `"Infinity"`, `"-Infinity"`.
 */
export type ContentValue = string | number | boolean;

/** One value of a decoded payload: its full path (`/3/0/7/1`), value, and time (epoch seconds) when it has one. */
export interface ContentEntry {
  readonly path: string;
  readonly value: ContentValue;
  readonly time?: number;
}

/** Smallest LwM2M Integer: the 8-byte TLV form is 64-bit two's complement. */
export const INT64_MIN = -(2n ** 63n);
/** Largest LwM2M Integer. */
export const INT64_MAX = 2n ** 63n - 1n;
/** Largest LwM2M 1.1 Unsigned Integer (8 bytes). */
export const UINT64_MAX = 2n ** 64n - 1n;

/** The uplink form of a typed value (see {@link ContentValue}). */
export function toContentValue(typed: TypedValue): ContentValue {
  switch (typed.type) {
    case "integer":
    case "unsignedInteger": {
      const n = Number(typed.value);
      return Number.isSafeInteger(n) ? n : typed.value.toString();
    }
    case "float":
      return Number.isFinite(typed.value) ? typed.value : String(typed.value);
    case "opaque":
      return Buffer.from(typed.value).toString("hex");
    case "objlnk":
      return formatObjectLink(typed.value);
    default:
      return typed.value;
  }
}

/** `3:0` (OMA JSON `ov`, SenML `vlo`, plain text objlnk). */
export function formatObjectLink(link: ObjectLink): string {
  return `${link.objectId}:${link.instanceId}`;
}

/** Reads `objectId:instanceId`, each a plain decimal 0..65535. */
export function parseObjectLink(text: string): Result<ObjectLink> {
  const match = /^(0|[1-9]\d{0,4}):(0|[1-9]\d{0,4})$/.exec(text);
  const objectId = Number(match?.[1]);
  const instanceId = Number(match?.[2]);
  if (match === null || objectId > 65535 || instanceId > 65535)
    return refuse(`object link "${text}" is not <objectId>:<instanceId> with ids 0..65535`);
  return ok({ objectId, instanceId });
}

/** Whether a bigint fits the range of an integer type. */
export function integerInRange(value: bigint, type: "integer" | "unsignedInteger"): boolean {
  return type === "integer" ? value >= INT64_MIN && value <= INT64_MAX : value >= 0n && value <= UINT64_MAX;
}

const INTEGER_TEXT = /^-?(0|[1-9]\d*)$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/**
 * Types a JSON value from a command (`{"path": "/3/0/14", "value": "+02:00"}`) as the resource's type wants it:
 * integers from safe-integer numbers or decimal strings (for 64-bit values), floats from numbers or numeric
 * strings, booleans from true/false, 0/1 or their strings, time from whole seconds, objlnk from `"3:0"`, opaque from
 * hex (the form reads give it). With the type unknown, the JSON type decides: boolean, integer, float or string.
 */
export function typedFromJson(json: unknown, type: ResourceType | undefined): Result<TypedValue> {
  const shown = show(json);
  switch (type) {
    case undefined:
      if (typeof json === "boolean") return ok({ type: "boolean", value: json });
      if (typeof json === "string") return ok({ type: "string", value: json });
      if (typeof json === "number" && Number.isSafeInteger(json)) return ok({ type: "integer", value: BigInt(json) });
      if (typeof json === "number" && Number.isFinite(json)) return ok({ type: "float", value: json });
      return refuse(`value ${shown} is no string, number or boolean`);
    case "string":
    case "corelnk":
      if (typeof json === "string") return ok({ type, value: json });
      if (typeof json === "number" || typeof json === "boolean") return ok({ type, value: String(json) });
      return refuse(`value ${shown} is no string`);
    case "integer":
    case "unsignedInteger": {
      const text = typeof json === "number" && Number.isSafeInteger(json) ? String(json) : json;
      if (typeof text !== "string" || !INTEGER_TEXT.test(text)) return refuse(`value ${shown} is no whole number`);
      const value = BigInt(text);
      if (!integerInRange(value, type)) return refuse(`value ${shown} is out of range for ${type}`);
      return ok({ type, value });
    }
    case "float": {
      const value = typeof json === "string" && json.trim() !== "" ? Number(json) : json;
      if (typeof value !== "number" || !Number.isFinite(value)) return refuse(`value ${shown} is no number`);
      return ok({ type, value });
    }
    case "boolean":
      if (json === true || json === 1 || json === "1" || json === "true") return ok({ type, value: true });
      if (json === false || json === 0 || json === "0" || json === "false") return ok({ type, value: false });
      return refuse(`value ${shown} is no boolean`);
    case "time":
      if (typeof json === "number" && Number.isSafeInteger(json)) return ok({ type, value: json });
      if (typeof json === "string" && INTEGER_TEXT.test(json) && Number.isSafeInteger(Number(json)))
        return ok({ type, value: Number(json) });
      return refuse(`value ${shown} is no time in whole seconds`);
    case "objlnk": {
      if (typeof json !== "string") return refuse(`value ${shown} is no object link "objectId:instanceId"`);
      const link = parseObjectLink(json);
      return link.ok ? ok({ type, value: link.value }) : link;
    }
    case "opaque":
      if (typeof json !== "string" || !HEX.test(json)) return refuse(`value ${shown} is no hex string`);
      return ok({ type, value: Buffer.from(json, "hex") });
    case "none":
      return refuse("the resource is executable and takes no value");
  }
}

function show(json: unknown): string {
  try {
    return JSON.stringify(json) ?? String(json);
  } catch {
    return String(json);
  }
}
