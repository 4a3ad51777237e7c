/**
 * A data point's `enum` is stored as the JSON text of an array (the API
 * accepts any JSON array, up to 10,000 characters). What the items mean is up
 * to the product, so every usual shape is read:
 *
 * - a plain value: `[0, 1, 2]`, `["auto", "manual"]`, `[true, false]`;
 * - a `[code, label]` pair: `[[0, "off"], [1, "on"]]` — both count;
 * - an object: `[{"value": 0, "label": "off"}]` — each of its plain member
 *   values counts; a one-member map `[{"0": "off"}]` also gives its key.
 *
 * `null` and nested containers inside an item are ignored.
 */

type Plain = string | number | boolean;

const isPlain = (v: unknown): v is Plain => typeof v === "string" || typeof v === "number" || typeof v === "boolean";

function membersOfItem(item: unknown): Plain[] {
  if (isPlain(item)) return [item];
  if (Array.isArray(item)) return item.filter(isPlain);
  if (item !== null && typeof item === "object") {
    const entries = Object.entries(item);
    const values = entries.map(([, v]) => v).filter(isPlain);
    return entries.length === 1 ? [entries[0]![0], ...values] : values;
  }
  return [];
}

/**
 * The allowed values of a stored enum as text (numbers in JavaScript's
 * shortest form, booleans as `true`/`false`), each once, in stored order; null
 * when the point has no usable enum (unset, not JSON, not an array, or no
 * plain member), so no enum rule applies.
 */
export function enumMembers(stored: string | null): string[] | null {
  if (stored === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const members = [...new Set(parsed.flatMap(membersOfItem).map(String))];
  return members.length > 0 ? members : null;
}

/** The finite number a text spells (`"1"`, `" 2.50 "`, `"1e3"`), or null (blank text is not 0). */
export function numeric(text: string): number | null {
  if (text.trim() === "") return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

const BOOLEAN_NUMBER: ReadonlyMap<string, number> = new Map([
  ["true", 1],
  ["false", 0],
]);

/**
 * Whether `measured` is one of `members`: equal text, or the same number
 * (`"1.0"` is `1`); `true` and `false`, as member or as value, match 1 and 0.
 */
export function enumContains(members: readonly string[], measured: number | string): boolean {
  const asNumber = typeof measured === "number" ? measured : (BOOLEAN_NUMBER.get(measured) ?? numeric(measured));
  const asText = String(measured);
  return members.some((m) => {
    if (m === asText) return true;
    if (asNumber === null) return false;
    const n = BOOLEAN_NUMBER.get(m) ?? numeric(m);
    return n === asNumber;
  });
}
