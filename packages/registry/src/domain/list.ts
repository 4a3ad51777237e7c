import { sql, type SelectQueryBuilder } from "kysely";

/** A page request, already validated: page >= 1, limit 1..1000. */
export interface Page {
  page: number;
  limit: number;
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
 * newest first by `orderBy` (an id column). Tenant scoping must already be in `query`.
 */
export async function paginate<DB, TB extends keyof DB, T>(
  query: SelectQueryBuilder<DB, TB, T>,
  page: Page,
  orderBy: string,
): Promise<ListResult<T>> {
  const countRow = await query
    .clearSelect()
    .select(sql<number>`count(*)`.as("n"))
    .executeTakeFirst();
  const items = await query
    .orderBy(sql.ref(orderBy), "desc")
    .limit(page.limit)
    .offset((page.page - 1) * page.limit)
    .execute();
  return { items, count: Number((countRow as { n?: number | string } | undefined)?.n ?? 0), page: page.page, limit: page.limit };
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
