import { sql, type Kysely } from "kysely";
import { DAY_MS, HISTORY_TABLES, ensurePartitions } from "./history-partitions.js";
import { UNPARTITIONED } from "./migrations/postgres/0034-partitioned-history.js";
import type { Database } from "./schema.js";

/** Default rows moved per transaction. */
export const DEFAULT_MOVE_BATCH_ROWS = 20_000;
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
 * PostgreSQL, after migration 0034: moves the rows of each `<table>_unpartitioned` into its partitioned table, in
 * id order, `batchRows` per transaction (`DELETE … RETURNING` into `INSERT`), then drops the emptied table. First it
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
      const spanDays = options.spanDays ?? 1;
      const from = Math.max(Number(oldest), now - MAX_PAST_SPANS * spanDays * DAY_MS);
      await ensurePartitions(db, { spanDays, from, now });
    }
    let moved = 0;
    for (;;) {
      if (options.stop?.()) return total + moved;
      const r = await sql`with batch as (
          delete from ${old} where id in (select id from ${old} order by id limit ${batchRows}) returning *)
        insert into ${sql.table(t.table)} select * from batch`.execute(db);
      const n = Number(r.numAffectedRows ?? 0);
      moved += n;
      options.onProgress?.(t.table, moved);
      if (n < batchRows) break;
    }
    await sql`drop table ${old}`.execute(db);
    total += moved;
  }
  return total;
}
