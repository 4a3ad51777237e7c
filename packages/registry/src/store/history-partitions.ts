import { sql, type Kysely } from "kysely";
import type { Database } from "./schema.js";

/** One day, ms. */
export const DAY_MS = 86_400_000;
/**
 * Default span of one history partition, days. A week, not a day: a query no time bound prunes (a lookup by id, a
 * tenant's newest uplinks) plans every partition, and with the ~97 day partitions of a 90-day window its planning
 * took 8–25 ms against about 1 ms with 22 week partitions and 0.1–0.3 ms unpartitioned (EXPLAIN ANALYZE, 300,000
 * uplinks, a loaded 2-core machine; docs/scale-out.md).
 */
export const DEFAULT_PARTITION_DAYS = 7;
/** Spans created ahead of the current one, so the next days' rows never wait for a partition. */
const PARTITIONS_AHEAD = 3;

/** A PostgreSQL history table, partitioned by RANGE on one epoch-ms column (migration 0034). */
export interface HistoryTable {
  table: "device_events" | "point_values" | "metric_values" | "connect_logs" | "control_logs" | "northbound_events";
  /** The partition key: the epoch-ms column history queries and retention bound. */
  column: string;
  /** A span of its own, days, whatever IOT_HISTORY_PARTITION_DAYS says. */
  spanDays?: number;
}

/**
 * The partitioned tables and their partition keys. Values are keyed by the device's time of the value
 * (`value_time`, what series queries bound); retention keeps a point value received within the window (see
 * dropExpiredPartitions).
 */
export const HISTORY_TABLES: readonly HistoryTable[] = [
  { table: "device_events", column: "msg_time" },
  { table: "point_values", column: "value_time" },
  { table: "metric_values", column: "value_time" },
  { table: "connect_logs", column: "create_at" },
  { table: "control_logs", column: "create_at" },
  // The outbox's window is hours (IOT_OUTBOX_RETENTION_HOURS): a day's partition goes a day after its window.
  { table: "northbound_events", column: "create_at", spanDays: 1 },
];

/** One partition of a history table: `[from, to)` in epoch ms, or the default partition (no bounds). */
export interface Partition {
  name: string;
  from?: number;
  to?: number;
}

/** The partitions of `table` in the current schema, bounded ones by their lower bound, the default one last. */
export async function listPartitions(db: Kysely<Database>, table: string): Promise<Partition[]> {
  const { rows } = await sql<{ name: string; bound: string }>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = to_regclass(${table})`.execute(db);
  const parts = rows.map((r): Partition => {
    const m = /FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)/.exec(r.bound);
    return m ? { name: r.name, from: Number(m[1]), to: Number(m[2]) } : { name: r.name };
  });
  return parts.sort((a, b) => (a.from ?? Infinity) - (b.from ?? Infinity));
}

/** The start of the span holding `time`: spans of `spanDays` UTC days counted from the epoch. */
export function spanStart(time: number, spanDays: number): number {
  const span = spanDays * DAY_MS;
  return Math.floor(time / span) * span;
}

/** The partition name of a span starting at `from`: `<table>_p<yyyymmdd>` (UTC). */
export function partitionName(table: string, from: number): string {
  return `${table}_p${new Date(from).toISOString().slice(0, 10).replaceAll("-", "")}`;
}

/** Which spans `ensurePartitions` makes: every one from the span of `from` to `ahead` spans after that of `now`. */
export interface EnsureOptions {
  spanDays?: number | undefined;
  ahead?: number | undefined;
  /** Epoch ms; default `now`. */
  from?: number | undefined;
  now?: number | undefined;
}

/**
 * Creates the missing partitions of every history table (the part of a span another partition already covers, as
 * after a change of span, is left out) and answers how many it made. Rows already in the default partition for a
 * new partition's range are moved into it in the same transaction. Safe to run on several nodes at once: a node
 * that finds the partition made meanwhile goes on.
 */
export async function ensurePartitions(db: Kysely<Database>, options: EnsureOptions = {}): Promise<number> {
  const now = options.now ?? Date.now();
  let made = 0;
  for (const t of HISTORY_TABLES) {
    const spanDays = t.spanDays ?? options.spanDays ?? DEFAULT_PARTITION_DAYS;
    const span = spanDays * DAY_MS;
    const last = spanStart(now, spanDays) + (options.ahead ?? PARTITIONS_AHEAD) * span;
    const existing = (await listPartitions(db, t.table)).filter((p) => p.from !== undefined);
    const missing: [number, number][] = [];
    for (let start = spanStart(options.from ?? now, spanDays); start <= last; start += span) {
      for (const gap of gaps(start, start + span, existing)) {
        missing.push(gap);
        existing.push({ name: "", from: gap[0], to: gap[1] });
      }
    }
    if (missing.length === 0) continue;
    if (await createAll(db, t, missing)) made += missing.length;
    else for (const [from, to] of missing) if (await createPartition(db, t, from, to)) made++;
  }
  return made;
}

/**
 * Creates the partitions of `ranges` in one transaction (one round trip) when the default partition holds no row of
 * their span; false when it does, or another node made one of them meanwhile (then they are made one by one).
 */
async function createAll(db: Kysely<Database>, t: HistoryTable, ranges: [number, number][]): Promise<boolean> {
  const lo = Math.min(...ranges.map((r) => r[0]));
  const hi = Math.max(...ranges.map((r) => r[1]));
  const statements = ranges.map(
    ([from, to]) =>
      `create table ${partitionName(t.table, from)} partition of ${t.table} for values from (${from}) to (${to})`,
  );
  try {
    return await db.transaction().execute(async (tx) => {
      const key = sql.ref(t.column);
      const { rows } = await sql<{ stray: boolean }>`select exists (select 1 from ${sql.table(`${t.table}_default`)}
        where ${key} >= ${lo} and ${key} < ${hi}) as stray`.execute(tx);
      if (rows[0]?.stray) return false;
      await sql.raw(statements.join(";\n")).execute(tx);
      return true;
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "42P07" || code === "42P17") return false;
    throw error;
  }
}

/** The parts of `[from, to)` no partition of `existing` covers. */
function gaps(from: number, to: number, existing: readonly Partition[]): [number, number][] {
  const out: [number, number][] = [];
  let at = from;
  const overlapping = existing.filter((p) => p.from! < to && p.to! > from).sort((a, b) => a.from! - b.from!);
  for (const p of overlapping) {
    if (p.from! > at) out.push([at, p.from!]);
    at = Math.max(at, p.to!);
  }
  if (at < to) out.push([at, to]);
  return out;
}

/** Creates one partition, moving the rows of its range out of the default partition; false when one was there. */
async function createPartition(db: Kysely<Database>, t: HistoryTable, from: number, to: number): Promise<boolean> {
  const name = partitionName(t.table, from);
  try {
    await db.transaction().execute(async (tx) => {
      const parent = sql.table(t.table);
      const key = sql.ref(t.column);
      const fallback = sql.table(`${t.table}_default`);
      // Rows of the range already in the default partition would make the new partition's creation fail.
      const { rows } = await sql<{ n: string | number }>`
        select count(*) as n from ${fallback} where ${key} >= ${from} and ${key} < ${to}`.execute(tx);
      const stray = Number(rows[0]?.n ?? 0);
      if (stray > 0) {
        await sql`create temporary table partition_strays (like ${parent}) on commit drop`.execute(tx);
        await sql`with moved as (delete from ${fallback} where ${key} >= ${from} and ${key} < ${to} returning *)
          insert into partition_strays select * from moved`.execute(tx);
      }
      await sql`create table ${sql.table(name)} partition of ${parent}
        for values from (${sql.lit(from)}) to (${sql.lit(to)})`.execute(tx);
      if (stray > 0) await sql`insert into ${parent} select * from partition_strays`.execute(tx);
    });
    return true;
  } catch (error) {
    // Another node made it meanwhile (same name, or an overlapping range).
    const code = (error as { code?: string }).code;
    if (code === "42P07" || code === "42P17") return false;
    throw error;
  }
}
