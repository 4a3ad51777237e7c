import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "../store/schema.js";
import { engineOf } from "../store/multi-row-insert.js";
import { ilike } from "./list.js";

/** Most devices a search takes from a trigram index; a search matching more scans, and fills a page soon. */
export const INDEXED_MATCHES = 2000;

/**
 * The device texts searched through a trigram index (SQLite: FTS5 tables, migrations 0022 and 0023; PostgreSQL:
 * pg_trgm GIN indexes of the lowered columns, which its planner picks by itself): each one's FTS5 table and column,
 * and the `devices` column (alias `d`) the exact condition reads.
 */
const TRIGRAM_INDEXES = {
  name: { fts: "devices_name_fts", ftsColumn: "device_name", column: "d.deviceName" },
  id: { fts: "devices_id_fts", ftsColumn: "device_id", column: "d.deviceId" },
} as const;

/** Which device text a search is about: `deviceName_like` or `deviceID_like`. */
export type DeviceText = keyof typeof TRIGRAM_INDEXES;

/**
 * The trigram index's LIKE pattern for a search text: the user's `%` and `_` stay wildcards (the index cannot take an
 * ESCAPE clause), so it finds every device the exact `ilike` finds and maybe more; the list applies both.
 */
function indexPattern(text: string): string {
  return `%${text.toLowerCase()}%`;
}

/** The devices (rowids) whose `field` the index matches to `text`. */
function indexed(field: DeviceText, text: string) {
  const { fts, ftsColumn } = TRIGRAM_INDEXES[field];
  return sql`select rowid from ${sql.table(fts)} where ${sql.ref(ftsColumn)} like ${indexPattern(text)}`;
}

/**
 * Whether the trigram index of `field` (SQLite) should narrow a search: only when the text holds 3 characters in a
 * row that are no wildcard, counted in code points as the trigrams count them (the index finds nothing shorter, it
 * would read itself whole), and the index finds at most INDEXED_MATCHES devices of all tenants (a denser search is
 * answered sooner by the scan, which stops once a page is full). PostgreSQL's planner chooses its own index, so
 * never there.
 */
export async function indexNarrows(db: Kysely<Database>, field: DeviceText, text: string): Promise<boolean> {
  if (engineOf(db) !== "sqlite" || !/[^%_]{3}/u.test(text)) return false;
  const row = await sql<{ n: number }>`select count(*) as n from (${indexed(field, text)}
      limit ${INDEXED_MATCHES + 1})`.execute(db);
  return Number(row.rows[0]?.n ?? Infinity) <= INDEXED_MATCHES;
}

/**
 * The conditions of a search for devices whose name (`deviceName_like`) and id (`deviceID_like`) contain the texts
 * given, on a query that joins `devices as d`: the exact `ilike` of each, and where a trigram index narrows it,
 * "`deviceIntIdColumn` is one of the devices the index finds" (an index on that column then finds the rows: the
 * devices' own, or their uplinks' or commands').
 */
export async function deviceSearchConditions(
  db: Kysely<Database>,
  search: { deviceNameLike?: string | undefined; deviceIdLike?: string | undefined },
  deviceIntIdColumn: string,
): Promise<RawBuilder<boolean>[]> {
  const conditions: RawBuilder<boolean>[] = [];
  for (const [field, text] of [
    ["name", search.deviceNameLike],
    ["id", search.deviceIdLike],
  ] as const) {
    if (!text) continue;
    conditions.push(ilike(TRIGRAM_INDEXES[field].column, text));
    if (await indexNarrows(db, field, text))
      conditions.push(sql<boolean>`${sql.ref(deviceIntIdColumn)} in (${indexed(field, text)})`);
  }
  return conditions;
}
