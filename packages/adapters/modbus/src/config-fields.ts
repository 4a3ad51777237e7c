import { ok, refuse, type Result } from "./codec/result.js";

/** A JSON object as the registry pushes it: fields of unknown type, checked one by one. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** Whether `value` is a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Absent, null and (for numbers) empty strings all mean "not set" in pushed configuration. */
const unset = (value: unknown) => value === undefined || value === null || value === "";

/** A whole number within [min, max], or `fallback` when the field is not set; the reason names the field. */
export function integerField(
  obj: JsonObject,
  key: string,
  min: number,
  max: number,
  fallback?: number,
): Result<number> {
  const value = obj[key];
  if (unset(value)) return fallback === undefined ? refuse(`${key} is missing`) : ok(fallback);
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
    return refuse(`${key} ${JSON.stringify(value)} must be a whole number from ${min} to ${max}`);
  return ok(value);
}

/** A non-empty string, or `fallback` when the field is not set. */
export function textField(obj: JsonObject, key: string, fallback?: string): Result<string> {
  const value = obj[key];
  if (unset(value)) return fallback === undefined ? refuse(`${key} is missing`) : ok(fallback);
  if (typeof value !== "string" || value.trim() === "") return refuse(`${key} must be a non-empty string`);
  return ok(value);
}

/** One of a closed list of strings, or `fallback` when the field is not set. */
export function choiceField<const T extends string>(
  obj: JsonObject,
  key: string,
  choices: readonly T[],
  fallback: T,
): Result<T> {
  const value = obj[key];
  if (unset(value)) return ok(fallback);
  if (typeof value !== "string" || !choices.includes(value as T))
    return refuse(`${key} ${JSON.stringify(value)} must be one of ${choices.join(", ")}`);
  return ok(value as T);
}

/** A finite number, or null when the field is not set (a data point's optional limit). */
export function limitField(obj: JsonObject, key: string): Result<number | null> {
  const value = obj[key];
  if (unset(value)) return ok(null);
  if (typeof value !== "number" || !Number.isFinite(value)) return refuse(`${key} must be a number or null`);
  return ok(value);
}

type Values<T> = { readonly [K in keyof T]: T[K] extends Result<infer V> ? V : never };

/** Several fields at once: all their values, or the first field's reason (in the order given). */
export function fields<T extends Record<string, Result<unknown>>>(results: T): Result<Values<T>> {
  const out: Record<string, unknown> = {};
  for (const [key, r] of Object.entries(results)) {
    if (!r.ok) return refuse(r.reason);
    out[key] = r.value;
  }
  return ok(out as Values<T>);
}
