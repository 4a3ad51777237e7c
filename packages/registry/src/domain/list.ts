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

/** How a validated page reads: its row offset and the column and direction it is sorted by. */
interface Ordering {
  offset: number;
  column: string;
  direction: "asc" | "desc";
}

/**
 * Checks a page against what a list allows: `id` and `createAt` sort every list, `sortable` adds columns of the
 * same table as `key`; anything else is PARAMETER_INVALID, and so is a page beyond MAX_PAGE or a row offset that is
 * not an exact integer.
 */
function orderingOf(page: Page, key: string, sortable: readonly string[]): Ordering {
  const offset = (page.page - 1) * page.limit;
  if (!Number.isSafeInteger(offset) || offset < 0 || page.page > MAX_PAGE)
    throw new RegistryError("PARAMETER_INVALID", { _page: `must be 1 to ${MAX_PAGE}` });
  const allowed = ["id", "createAt", ...sortable];
  const field = page.sort ?? "id";
  if (!allowed.includes(field))
    throw new RegistryError("PARAMETER_INVALID", { _sort: `must be one of ${allowed.join(", ")}` });
  const table = key.includes(".") ? key.slice(0, key.indexOf(".") + 1) : "";
  return { offset, column: field === "id" ? key : `${table}${field}`, direction: page.order ?? "desc" };
}

/**
 * The number of matches, counted only when the rows read cannot tell it: when fewer than `asked` rows came back from
 * `offset` (and some did, or the offset is 0), the list ended there, so the count is the offset plus the rows.
 */
async function countOf<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  asked: number,
  offset: number,
  rows: number,
): Promise<number> {
  if (rows < asked && (rows > 0 || offset === 0)) return offset + rows;
  const row = await query
    .clearSelect()
    .select(sql<number>`count(*)`.as("n"))
    .executeTakeFirst();
  return Number((row as { n?: number | string } | undefined)?.n ?? 0);
}

/**
 * Ids `paginateIds` reads beyond the page: a search matching fewer rows than the page plus these is then answered
 * by one scan, the count included (a `_like` filter cannot use an index to find its rows, only to scan them).
 */
const SPARE_KEYS = 1000;

/**
 * Runs a filtered query for one page, newest first by `orderBy` (an id column) unless the page asks for another
 * order (see `orderingOf`), ties broken by id, plus the count of every match. Tenant scoping must already be in
 * `query`. For large tables prefer `paginateIds`, which counts and pages without the joins.
 */
export async function paginate<DB, TB extends keyof DB, T>(
  query: SelectQueryBuilder<DB, TB, T>,
  page: Page,
  orderBy: string,
  sortable: readonly string[] = [],
): Promise<ListResult<T>> {
  const { offset, column, direction } = orderingOf(page, orderBy, sortable);
  const items = await query
    .orderBy(sql.ref(column), direction)
    .orderBy(sql.ref(orderBy), direction)
    .limit(page.limit)
    .offset(offset)
    .execute();
  return { items, count: await countOf(query, page.limit, offset, items.length), page: page.page, limit: page.limit };
}

/**
 * Pages a list of a large table in two steps: `filtered` (the tenant's matching rows of the base table, with only
 * the joins its filters need, nothing selected) gives the page's ids and the count, both answerable from an index;
 * then `load` reads the records of just those ids with every join the record shows. At 100,000 devices a page thus
 * costs a few ms instead of tens (counting and offsetting the joined rows). It reads SPARE_KEYS ids past the page,
 * so that a selective search needs no second scan to count. `key` is the id column, as in
 * `paginate`; `load` may return the rows in any order (they are put in the page's). `count`, when given, answers the
 * count instead (a count the store keeps, where counting the rows cannot be fast).
 */
export async function paginateIds<DB, TB extends keyof DB, T extends { id: number | string }>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  page: Page,
  key: string,
  sortable: readonly string[],
  load: (ids: number[]) => Promise<T[]>,
  count?: () => Promise<number>,
): Promise<ListResult<T>> {
  const { offset, column, direction } = orderingOf(page, key, sortable);
  // $castTo: with DB and TB generic here, kysely cannot work out the selection's type by itself.
  const keys = await filtered
    .select(sql<number | string>`${sql.ref(key)}`.as("pageKey"))
    .$castTo<{ pageKey: number | string }>()
    .orderBy(sql.ref(column), direction)
    .orderBy(sql.ref(key), direction)
    .limit(page.limit + SPARE_KEYS)
    .offset(offset)
    .execute();
  const ids = keys.slice(0, page.limit).map((k) => Number(k.pageKey));
  const rows = ids.length === 0 ? [] : await load(ids);
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  return {
    items: ids.flatMap((id) => byId.get(id) ?? []),
    count: count ? await count() : await countOf(filtered, page.limit + SPARE_KEYS, offset, keys.length),
    page: page.page,
    limit: page.limit,
  };
}

/**
 * A case-insensitive "contains" pattern for LIKE, with the user's `%`, `_`
 * and `\` taken literally (use with `escape '\'`).
 */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `lower(column) like pattern escape '\'`, portable across SQLite and PostgreSQL. */
export function ilike(column: string, text: string) {
  return sql<boolean>`lower(${sql.ref(column)}) like ${containsPattern(text)} escape '\\'`;
}
