import { z } from "zod";

/** Any JSON value: required in the document (a record always carries the member), whatever it holds. */
const jsonValue = z
  .union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())])
  .describe("Any JSON value");

/** A JSON value as records carry it. */
export type JsonValue = z.output<typeof jsonValue>;

/** Which shape of a record: list row, detail, or the answer to a create/edit (no labels, no joined names). */
export type Shape = "list" | "detail" | "write";

/** JSON text columns are answered as the JSON they hold (or the raw text if it is not JSON). */
export function parseJson(text: string | null): JsonValue {
  if (text === null) return null;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** The list envelope: `{items, meta: {count, limit, page}}`. */
export function list<T, R>(r: { items: T[]; count: number; page: number; limit: number }, map: (t: T) => R) {
  return { items: r.items.map(map), meta: { count: r.count, limit: r.limit, page: r.page } };
}

/** Field schemas the record schemas of forms/ share; a record schema is the type its serializer returns. */
export const f = {
  int: z.number().int(),
  intN: z.number().int().nullable(),
  num: z.number(),
  numN: z.number().nullable(),
  str: z.string(),
  strN: z.string().nullable(),
  /** A date as formatDate writes it (`YYYY-MM-DD HH:MM:SS`, UTC), or null. */
  date: z.string().nullable().describe("YYYY-MM-DD HH:MM:SS (UTC)"),
  /** A `…Label` text in the caller's language; null for an unset or unknown code. */
  label: z.string().nullable(),
  /** A JSON column answered as the JSON it holds (see parseJson). */
  json: jsonValue,
  /** `{id}` of a member. */
  ids: z.array(z.object({ id: z.number().int() })),
};

/** The list envelope of `item`, as `list` answers it. */
export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    meta: z.object({ count: f.int, limit: f.int, page: f.int }),
  });

/** The records a serializer may return: one schema per shape, the type is any of them. */
export type RecordOf<S extends Record<string, z.ZodType>> = z.output<S[keyof S]>;

/** The same records in Form 1 and Form 2. */
export type ByForm<S> = Record<"1" | "2", S>;

/** The record of shape `S` of a serializer whose records are the same in both forms. */
export type ShapeOf<Rs extends Record<string, z.ZodType>, S extends keyof Rs> = z.output<Rs[S]>;

/** The record of shape `S` in either form, of a serializer whose records differ by form. */
export type FormShapeOf<Rs extends ByForm<Record<Shape, z.ZodType>>, S extends Shape> =
  z.output<Rs["1"][S]> | z.output<Rs["2"][S]>;
