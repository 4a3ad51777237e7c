import type { Context } from "hono";
import { z } from "zod";
import { MAX_PAGE, RegistryError, ROLES, type Page } from "@iot/registry";
import { boundedJsonText } from "./bounded-json.js";
import { jsonBody, requireJsonType } from "./request-body.js";

/** Page size bounds: `_limit` is clamped into 1..MAX_LIMIT; the default is 10. */
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 1000;

function positiveInt(c: Context, name: string): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return undefined;
  if (!/^-?\d+$/.test(raw)) throw new RegistryError("PARAMETER_INVALID", { [name]: "must be an integer" });
  return Number(raw);
}

const SORT_FIELD = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const SORT_ORDER = /^(asc|desc)$/i;

/** `_sort` (a record field name; the list decides which it allows) and `_order` (asc or desc, any case). */
function sortOf(sort: string | undefined, order: string | undefined): Pick<Page, "sort" | "order"> {
  if (sort && !SORT_FIELD.test(sort)) throw new RegistryError("PARAMETER_INVALID", { _sort: "must be a field name" });
  if (order && !SORT_ORDER.test(order)) throw new RegistryError("PARAMETER_INVALID", { _order: "must be asc or desc" });
  return { sort: sort || undefined, order: (order?.toLowerCase() || undefined) as Page["order"] };
}

/** `_page` must be 1..MAX_PAGE, so that the row offset stays an exact integer on both engines. */
function checkPage(page: number): number {
  if (page < 1) throw new RegistryError("PARAMETER_INVALID", { _page: "must be 1 or more" });
  if (!(page <= MAX_PAGE)) throw new RegistryError("PARAMETER_INVALID", { _page: `must be at most ${MAX_PAGE}` });
  return page;
}

/** Reads `_page` (default 1, 1..MAX_PAGE), `_limit` (default 10, clamped to 1..1000), `_sort` and `_order`. */
export function pageOf(c: Context): Page {
  const page = checkPage(positiveInt(c, "_page") ?? 1);
  const limit = Math.min(MAX_LIMIT, Math.max(1, positiveInt(c, "_limit") ?? DEFAULT_LIMIT));
  return { page, limit, ...sortOf(c.req.query("_sort"), c.req.query("_order")) };
}

const digits = (what: string) => z.string().regex(/^\d+$/, `must be ${what}`);

/** Query of every list endpoint: `_page`, `_limit` and optional `_sort`/`_order`, plus the endpoint's filters. */
export function listQuery<S extends z.ZodRawShape>(filters: S) {
  return z.object({
    _page: digits("a whole number").optional(),
    _limit: digits("a whole number").optional(),
    _sort: z.string().regex(SORT_FIELD, "must be a field name").optional(),
    _order: z.string().regex(SORT_ORDER, "must be asc or desc").optional(),
    ...filters,
  });
}

/** The page a validated list query asks for: page 1..MAX_PAGE (default 1), limit 1..1000 (default 10), its sort. */
export function pageFrom(q: {
  _page?: string | undefined;
  _limit?: string | undefined;
  _sort?: string | undefined;
  _order?: string | undefined;
}): Page {
  const page = checkPage(q._page ? Number(q._page) : 1);
  const limit = Math.min(MAX_LIMIT, Math.max(1, q._limit ? Number(q._limit) : DEFAULT_LIMIT));
  return { page, limit, ...sortOf(q._sort, q._order) };
}

/** `?ids=1,2,3` of every delete. */
export const idsQuery = z.object({ ids: z.string().regex(/^\d{1,15}(,\d{1,15})*$/, "must be comma-separated ids") });

/** The ids of a validated `ids` query, without repeats. */
export const idsFrom = (q: { ids: string }): number[] => [...new Set(q.ids.split(",").map(Number))];

/** An optional integer filter in a query string. */
export const intFilter = digits("an integer").transform(Number).optional();

/** The integer id in the path; an id that is not a number names no record (404). */
export function idParam(c: Context, name = "id"): number {
  const raw = c.req.param(name) ?? "";
  if (!/^\d{1,15}$/.test(raw)) throw new RegistryError("DATA_NOT_FOUND", { [name]: "not found" });
  return Number(raw);
}

/**
 * Parses a JSON body and validates it: a body not declared as JSON is UNSUPPORTED_MEDIA_TYPE, a body that is not
 * JSON is BAD_REQUEST, a failed schema is FORM_INVALID with `errors` naming every bad field (a member a strict body
 * does not take as "unknown field").
 */
export async function bodyOf<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  requireJsonType(c);
  let raw: unknown;
  try {
    raw = await jsonBody(c);
  } catch {
    throw new RegistryError("BAD_REQUEST", { body: "must be a JSON object" }, "Body is not valid JSON");
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const at = issue.path.length ? `${issue.path.join(".")}.` : "";
    if (issue.code === "unrecognized_keys") for (const key of issue.keys) errors[`${at}${key}`] ??= "unknown field";
    else errors[at ? at.slice(0, -1) : "body"] ??= issue.message;
  }
  throw new RegistryError("FORM_INVALID", errors);
}

/** Integer fields accept numbers or digit strings (the spec's examples send both). */
export const intField = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/, "must be an integer")
    .transform(Number),
]);
/** Float fields accept numbers or numeric strings (also as JavaScript writes them, `1e-7`: an export's cells). */
export const floatField = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(\.\d+)?(e[-+]?\d+)?$/i, "must be a number")
    .transform(Number)
    .refine(Number.isFinite, "must be a finite number"),
]);
/** An integer restricted to a closed set of codes (or its digit string); the document lists the codes. */
export const codeField = (codes: readonly number[]) =>
  intField
    .refine((v) => codes.includes(v), { message: `must be one of ${codes.join(", ")}` })
    .meta({
      anyOf: [
        { type: "integer", enum: [...codes] },
        { type: "string", enum: codes.map(String) },
      ],
    });

/** The role a user or an application key acts with: one closed list for both kinds of caller. */
export const roleField = z.enum(ROLES, { message: `must be one of ${ROLES.join(", ")}` });

/**
 * A JSON array sent as an array or as a string holding one (the spec's
 * examples send both); "" and null unset it. At most `maxChars` of JSON and MAX_JSON_DEPTH levels deep.
 */
export const jsonArrayField = (maxChars: number) =>
  z
    .union([z.array(z.unknown()), z.string(), z.null()], "must be a JSON array")
    .optional()
    .transform((v, ctx): unknown[] | null | undefined => {
      if (typeof v !== "string") return v;
      if (v.trim() === "") return null;
      try {
        const parsed: unknown = JSON.parse(v);
        if (Array.isArray(parsed)) return parsed;
      } catch {
        /* reported below */
      }
      ctx.addIssue({ code: "custom", message: "must be a JSON array" });
      return z.NEVER;
    })
    .superRefine((v, ctx) => {
      if (v !== undefined && v !== null) boundedJsonText(v, ctx, maxChars);
    });

/** A time in the spec's Date format, `YYYY-MM-DD HH:MM:SS` (UTC), as epoch ms. */
export const dateQuery = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, "must be a date YYYY-MM-DD HH:MM:SS")
  .transform((text, ctx) => {
    const ms = Date.parse(`${text.replace(" ", "T")}Z`);
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== text.replace(" ", "T")) {
      ctx.addIssue({ code: "custom", message: "not a real date" });
      return z.NEVER;
    }
    return ms;
  })
  .optional();
