import { sql, type Kysely, type RawBuilder, type SqlBool } from "kysely";
import { HISTORY_TABLES, listPartitions, type HistoryTable, type Partition } from "./history-partitions.js";
import type { Database } from "./schema.js";

/**
 * The cutoff the row sweep uses on a partitioned table: the start of the partition holding `cutoff`, when one does.
 * That partition's rows stay until it is dropped whole (they are kept at most one span past the retention window),
 * so retention never deletes them row by row; older rows left (the default partition's, those of a partition kept
 * for a row still needed) are the row sweep's.
 */
export async function rowSweepCutoff(db: Kysely<Database>, table: DropRule["table"], cutoff: number): Promise<number> {
  const edge = (await listPartitions(db, table)).find((p) => p.from! <= cutoff && cutoff < p.to!);
  return edge?.from ?? cutoff;
}

/** Longest wait for the lock that dropping a partition takes on its table, ms: ingest waits at most this long. */
const DROP_LOCK_TIMEOUT_MS = 2_000;

/** Which rows keep a partition whose whole range is past the cutoff (it is then left to the row sweep). */
export interface DropRule {
  table: HistoryTable["table"];
  /** A condition on the partition's rows (columns unqualified): any row meeting it keeps the partition. */
  keep?: RawBuilder<SqlBool> | undefined;
  /** Uplinks: their tenants' counts (uplink_counts) lose the dropped rows in the dropping transaction. */
  uplinkCounts?: true;
}

/**
 * PostgreSQL: drops each partition of `rule.table` whose whole range lies before `cutoff` (epoch ms) and which holds
 * no row `rule.keep` names; answers the rows dropped. The default partition's rows past the cutoff and the rows of a
 * partition kept are the row sweep's (RetentionSweeper, with rowSweepCutoff). The rows are counted before the drop;
 * the drop itself takes the table's ACCESS EXCLUSIVE lock for a moment, waiting at most DROP_LOCK_TIMEOUT_MS for it
 * (the partition is tried again at the next sweep).
 */
export async function dropExpiredPartitions(db: Kysely<Database>, rule: DropRule, cutoff: number): Promise<number> {
  const t = HISTORY_TABLES.find((h) => h.table === rule.table)!;
  let dropped = 0;
  for (const p of await listPartitions(db, t.table)) {
    if (p.to === undefined || p.to > cutoff) continue;
    const n = await dropOne(db, t, p, rule);
    if (n === undefined) continue;
    dropped += n;
  }
  return dropped;
}

/** Drops one partition; answers its rows, or undefined when it was kept or its lock not had in time. */
async function dropOne(
  db: Kysely<Database>,
  t: HistoryTable,
  p: Partition,
  rule: DropRule,
): Promise<number | undefined> {
  const part = sql.table(p.name);
  if (rule.keep !== undefined) {
    const kept = await sql<{ k: boolean }>`select exists (select 1 from ${part} where ${rule.keep}) as k`.execute(db);
    if (kept.rows[0]?.k) return undefined;
  }
  // Per tenant: every row, and the rows counted in uplink_counts (those of devices that still exist).
  const { rows } = await sql<{ tenantId: string | null; n: string | number; counted: string | number }>`
    select tenant_id, count(*) as n,
      ${rule.uplinkCounts ? sql`count(*) filter (where exists (select 1 from devices d where d.id = device_int_id))` : sql`0`} as counted
    from ${part} group by tenant_id`.execute(db);
  try {
    await db.transaction().execute(async (tx) => {
      await sql.raw(`set local lock_timeout = ${DROP_LOCK_TIMEOUT_MS}`).execute(tx);
      await sql`lock table ${sql.table(t.table)} in access exclusive mode`.execute(tx);
      const deltas = rows.filter((r) => r.tenantId !== null && Number(r.counted) > 0);
      if (rule.uplinkCounts && deltas.length > 0) {
        const tenants = deltas.map((r) => r.tenantId!);
        const ns = deltas.map((r) => -Number(r.counted));
        await sql`insert into uplink_counts (tenant_id, n)
          select * from unnest(${tenants}::text[], ${ns}::bigint[])`.execute(tx);
      }
      await sql`drop table ${part}`.execute(tx);
    });
  } catch (error) {
    if ((error as { code?: string }).code === "55P03") return undefined; // lock_not_available
    throw error;
  }
  return rows.reduce((sum, r) => sum + Number(r.n), 0);
}
