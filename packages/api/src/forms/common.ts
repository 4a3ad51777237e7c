import type { View } from "../view.js";

/** Which shape of a record: list row, detail, or the answer to a create/edit (no labels, no joined names). */
export type Shape = "list" | "detail" | "write";

/** JSON text columns are answered as the JSON they hold (or the raw text if it is not JSON). */
export function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The list envelope: `{items, meta: {count, limit, page}}`. */
export function list<T, R>(r: { items: T[]; count: number; page: number; limit: number }, map: (t: T) => R) {
  return { items: r.items.map(map), meta: { count: r.count, limit: r.limit, page: r.page } };
}

/** A serializer of one record kind for a view. */
export type Serializer<T> = (record: T, shape: Shape, view: View) => Record<string, unknown>;
