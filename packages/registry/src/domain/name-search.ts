import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "../store/schema.js";
import { engineOf } from "../store/multi-row-insert.js";
import { ilike } from "./list.js";

/** Most devices a name search takes from the trigram index; a search matching more scans, and fills a page soon. */
export const INDEXED_NAME_MATCHES = 2000;

/**
 * The trigram index's LIKE pattern for a search text: the user's `%` and `_` stay wildcards (the index cannot take an
 * ESCAPE clause), so it finds every device the exact `ilike` finds and maybe more; the list applies both.
 */
function indexPattern(text: string): string {
  return `%${text.toLowerCase()}%`;
}

/**
 * Whether the device-name trigram index (SQLite, migration 0022) should narrow a `deviceName_like` search: only when
 * the text holds 3 characters in a row that are no wildcard, counted in code points as the trigrams count them (the
 * index finds nothing shorter, it would read itself whole), and the index finds at most INDEXED_NAME_MATCHES devices
 * of all tenants (a denser search is answered sooner by the scan, which stops once a page is full). PostgreSQL's
 * planner chooses its own index, so never there.
 */
export async function nameIndexNarrows(db: Kysely<Database>, text: string): Promise<boolean> {
  if (engineOf(db) !== "sqlite" || !/[^%_]{3}/u.test(text)) return false;
  const row = await sql<{ n: number }>`select count(*) as n from (select rowid from devices_name_fts
      where device_name like ${indexPattern(text)} limit ${INDEXED_NAME_MATCHES + 1})`.execute(db);
  return Number(row.rows[0]?.n ?? Infinity) <= INDEXED_NAME_MATCHES;
}

/**
 * The conditions of a search for devices whose name contains `text`: the exact `ilike` on `nameColumn`, and where
 * the trigram index narrows the search, "`deviceIdColumn` is one of the devices it finds" (an index on that column
 * then finds the rows: the devices' own, or their uplinks' or commands').
 */
export async function deviceNameConditions(
  db: Kysely<Database>,
  text: string,
  nameColumn: string,
  deviceIdColumn: string,
): Promise<RawBuilder<boolean>[]> {
  const exact = ilike(nameColumn, text);
  if (!(await nameIndexNarrows(db, text))) return [exact];
  const pattern = indexPattern(text);
  return [
    exact,
    sql<boolean>`${sql.ref(deviceIdColumn)} in (select rowid from devices_name_fts where device_name like ${pattern})`,
  ];
}
