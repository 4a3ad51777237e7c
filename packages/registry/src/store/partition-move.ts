import { sql, type Kysely } from "kysely";
import { DAY_MS, DEFAULT_PARTITION_DAYS, HISTORY_TABLES, ensurePartitions } from "./history-partitions.js";
import { UNPARTITIONED } from "./migrations/postgres/0034-partitioned-history.js";
import type { Database } from "./schema.js";

/** Default rows moved per transaction. */
const DEFAULT_MOVE_BATCH_ROWS = 20_000;
/** Most spans made for old rows, counted back from now: older rows go to the default partition. */
const MAX_PAST_SPANS = 400;

/** How `moveUnpartitionedRows` works. */
export interface MoveOptions {
  /** Rows moved per transaction. */
  batchRows?: number | undefined;
  /** The span of one partition, days (IOT_HISTORY_PARTITION_DAYS). */
  spanDays?: number | undefined;
  now?: number | undefined;
  /** After each batch: the table and the rows moved so far in this call. */
  onProgress?: ((table: string, moved: number) => void) | undefined;
  /** Asked before each batch; true stops the move there (the next call goes on). */
  stop?: (() => boolean) | undefined;
}

/**
 * PostgreSQL, after migration 0034: copies the rows of each `<table>_unpartitioned` into its partitioned table, in
 * id ranges of `batchRows` ids per transaction, then drops the old table. A stopped move goes on after the newest id
 * the partitioned table holds (nothing else writes it before the move ends: it runs under the start-up lock). First it
 * makes the partitions of the old rows' time range (at most MAX_PAST_SPANS spans back; older rows land in the default
 * partition). Each batch commits on its own, so a stop (a crash, `stop`) loses nothing and the next call goes on.
 * Answers the rows moved; 0 when there is nothing (left) to move.
 */
export async function moveUnpartitionedRows(db: Kysely<Database>, options: MoveOptions = {}): Promise<number> {
  const batchRows = options.batchRows ?? DEFAULT_MOVE_BATCH_ROWS;
  const now = options.now ?? Date.now();
  let total = 0;
  for (const t of HISTORY_TABLES) {
    const old = sql.table(`${t.table}${UNPARTITIONED}`);
    const exists = await sql<{ r: string | null }>`select to_regclass(${t.table + UNPARTITIONED})::text as r`.execute(
      db,
    );
    if (exists.rows[0]?.r == null) continue;
    const { rows } = await sql<{
      oldest: number | null;
    }>`select min(${sql.ref(t.column)}) as oldest from ${old}`.execute(db);
    const oldest = rows[0]?.oldest;
    if (oldest != null) {
      const spanDays = options.spanDays ?? DEFAULT_PARTITION_DAYS;
      const from = Math.max(Number(oldest), now - MAX_PAST_SPANS * spanDays * DAY_MS);
      await ensurePartitions(db, { spanDays, from, now });
    }
    // Where a stopped move ended: the newest id copied (nothing else writes the table before the move ends).
    const { rows: at } = await sql<{ last: number | null }>`select max(id) as last from ${sql.table(t.table)}`.execute(
      db,
    );
    let last = Number(at[0]?.last ?? 0);
    let moved = 0;
    for (;;) {
      if (options.stop?.()) return total + moved;
      // The batch's last id: batchRows rows on along the old primary key (none: the rest of the table).
      const { rows: ends } = await sql<{ id: number }>`select id from ${old} where id > ${last}
        order by id offset ${batchRows - 1} limit 1`.execute(db);
      const upTo = ends[0] === undefined ? undefined : Number(ends[0].id);
      // Copied, not deleted: the old table goes whole at the end.
      const r = await sql`insert into ${sql.table(t.table)} select * from ${old} where id > ${last}
        ${upTo === undefined ? sql`` : sql`and id <= ${upTo}`}`.execute(db);
      moved += Number(r.numAffectedRows ?? 0);
      options.onProgress?.(t.table, moved);
      if (upTo === undefined) break;
      last = upTo;
    }
    await sql`drop table ${old}`.execute(db);
    total += moved;
  }
  return total;
}
