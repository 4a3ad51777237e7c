import { sql, type SelectQueryBuilder } from "kysely";
import { RegistryError } from "../errors.js";

/**
 * Highest page number a list answers (10^12): with at most 1000 records a page
 * the row offset stays below 2^53, an exact integer that both engines take
 * (beyond it SQLite refused the offset with SQLITE_MISMATCH).
 */
export const MAX_PAGE = 1_000_000_000_000;

/**
 * A page request, already validated: page 1..MAX_PAGE, limit 1..1000; `sort`
 * names a record field (checked by `paginate` against what the list allows).
 */
export interface Page {
  page: number;
  limit: number;
  sort?: string | undefined;
  order?: "asc" | "desc" | undefined;
}

/** One page of records plus the total number matching. */
export interface ListResult<T> {
  items: T[];
  count: number;
  page: number;
  limit: number;
}

/**
 * Runs a filtered query twice: once counting every match, once for the page,
 * newest first by `orderBy` (an id column) unless the page asks for another
 * order. `id` and `createAt` sort every list; `sortable` adds columns of the
 * same table (record field names, e.g. "deviceName"); anything else is
 * PARAMETER_INVALID, and so is a page beyond MAX_PAGE or a row offset that is
 * not an exact integer. Ties are broken by id. Tenant scoping must already be in `query`.
 */
export async function paginate<DB, TB extends keyof DB, T>(
  query: SelectQueryBuilder<DB, TB, T>,
  page: Page,
  orderBy: string,
  sortable: readonly string[] = [],
): Promise<ListResult<T>> {
  const offset = (page.page - 1) * page.limit;
  if (!Number.isSafeInteger(offset) || offset < 0 || page.page > MAX_PAGE)
    throw new RegistryError("PARAMETER_INVALID", { _page: `must be 1 to ${MAX_PAGE}` });
  const allowed = ["id", "createAt", ...sortable];
  const field = page.sort ?? "id";
  if (!allowed.includes(field))
    throw new RegistryError("PARAMETER_INVALID", { _sort: `must be one of ${allowed.join(", ")}` });
  const direction = page.order ?? "desc";
  const table = orderBy.includes(".") ? orderBy.slice(0, orderBy.indexOf(".") + 1) : "";
  const column = field === "id" ? orderBy : `${table}${field}`;
  const countRow = await query
    .clearSelect()
    .select(sql<number>`count(*)`.as("n"))
    .executeTakeFirst();
  const items = await query
    .orderBy(sql.ref(column), direction)
    .orderBy(sql.ref(orderBy), direction)
    .limit(page.limit)
    .offset(offset)
    .execute();
  return {
    items,
    count: Number((countRow as { n?: number | string } | undefined)?.n ?? 0),
    page: page.page,
    limit: page.limit,
  };
}

/**
 * A case-insensitive "contains" pattern for LIKE, with the user's `%`, `_`
 * and `\` taken literally (use with `escape '\'`).
 */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `lower(column) like pattern escape '\'`, portable across SQLite and PostgreSQL. */
export function ilike(column: string, text: string) {
  return sql<boolean>`lower(${sql.ref(column)}) like ${containsPattern(text)} escape '\\'`;
}
