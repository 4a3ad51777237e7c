import { sql, type Expression, type Kysely, type SqlBool } from "kysely";
import { PIPELINE_CURSOR_KEY } from "./pipeline-cursor-key.js";
import type { Database } from "./schema.js";
import { subtractUplinksWhere } from "./uplink-counts.js";
import { engineOf } from "./multi-row-insert.js";
import { dropExpiredPartitions, rowSweepCutoff, type DropRule } from "./partition-retention.js";

/** One day, ms. */
const DAY_MS = 86_400_000;
/** Default pause between two sweeps, ms (10 minutes). */
export const DEFAULT_RETENTION_INTERVAL_MS = 600_000;
/** Default wait from start to the first sweep, ms: startup and the adapters' reconnects go first. */
const DEFAULT_RETENTION_FIRST_DELAY_MS = 60_000;
/** Default rows one delete statement may remove. */
export const DEFAULT_RETENTION_BATCH_ROWS = 1_000;
/** Default pause between two delete statements, ms: ingest gets the (single SQLite) connection meanwhile. */
const DEFAULT_RETENTION_PAUSE_MS = 10;

/** A table retention trims, the column its age is counted from, and which of its rows may go at all. */
interface Trimmed {
  table: "deviceEvents" | "pointValues" | "metricValues" | "connectLogs" | "controlLogs";
  /** Epoch-ms column compared with the cutoff. */
  time: string;
  /** Only commands no longer waiting (publish status other than 1 issued). */
  settledOnly?: true;
  /** Only events the data pipeline went through (id at or below its cursor). */
  processedOnly?: true;
  /** PostgreSQL: the partitioned table (migration 0034) whose partitions past the cutoff are dropped whole. */
  partitioned: DropRule["table"];
  /** Runs first in each delete's transaction, given the rows' condition (columns unqualified): what they count for. */
  beforeDelete?: (tx: Kysely<Database>, where: Expression<SqlBool>) => Promise<void>;
}

const TRIMMED: readonly Trimmed[] = [
  // Uplinks leave their tenants' counts (uplink-counts.ts) in the transaction that deletes them.
  {
    table: "deviceEvents",
    partitioned: "device_events",
    time: "msgTime",
    processedOnly: true,
    beforeDelete: subtractUplinksWhere,
  },
  { table: "pointValues", partitioned: "point_values", time: "receivedAt" },
  { table: "metricValues", partitioned: "metric_values", time: "valueTime" },
  { table: "connectLogs", partitioned: "connect_logs", time: "createAt" },
  { table: "controlLogs", partitioned: "control_logs", time: "createAt", settledOnly: true },
];

/** Rows one sweep deleted, per table. */
export type RetentionCounts = Record<Trimmed["table"], number>;

/** How the sweeper runs; every field but `retentionDays` has a default. */
export interface RetentionOptions {
  /** Rows older than this many days are deleted; 0 keeps everything (the sweeper never runs). */
  retentionDays: number;
  /** Pause between sweeps, ms. */
  intervalMs?: number;
  /** Wait from `start()` to the first sweep, ms. */
  firstDelayMs?: number;
  /** Rows of one table one delete statement looks at (and so deletes at most). */
  batchRows?: number;
  /** Pause between two delete statements, ms. */
  pauseMs?: number;
  /** A sweep ended with rows deleted (for the log). */
  onSwept?: (counts: RetentionCounts) => void;
  /** A sweep failed; the next one runs on schedule. */
  onError?: (err: unknown) => void;
}

/**
 * Deletes device events, data point and metric values, connect logs and settled control logs older than the
 * retention period, in the background. Each delete statement covers one window of at most `batchRows` rows in id
 * order (a primary-key range, so no table is scanned in full and no time index is needed), with a pause between
 * statements so ingest never waits for more than one of them. A table's sweep walks from its oldest id and stops at
 * the first window holding no row older than the cutoff: ids grow with arrival, so that is where the kept rows
 * begin (a window of old commands still waiting is stepped over). Events
 * the data pipeline has not gone through yet (above its cursor, or all of them before it ever ran) are kept.
 * On PostgreSQL the tables are partitioned by time (migration 0034): each partition wholly past the cutoff is
 * dropped whole (partition-retention.ts), and the partition at the edge waits until it is wholly past too, so a row
 * is kept at most one partition span longer than on SQLite and none is deleted one by one; the row sweep deletes
 * only the default partition's expired rows and the expired rows of partitions kept for a row still needed.
 */
export class RetentionSweeper {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> | undefined;
  private stopped = false;
  private readonly batchRows: number;
  private readonly pauseMs: number;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: RetentionOptions,
  ) {
    this.batchRows = options.batchRows ?? DEFAULT_RETENTION_BATCH_ROWS;
    this.pauseMs = options.pauseMs ?? DEFAULT_RETENTION_PAUSE_MS;
  }

  /** Schedules the sweeps (unref'd timers: they never keep the process alive); nothing when retention is off. */
  start(): void {
    if (this.options.retentionDays <= 0 || this.timer || this.stopped) return;
    this.schedule(this.options.firstDelayMs ?? DEFAULT_RETENTION_FIRST_DELAY_MS);
  }

  /** Stops scheduling, ends the running sweep after its current statement and waits for it. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.sweeping;
  }

  /** One sweep over every table with the cutoff `retentionDays` before `now` (epoch ms). */
  async sweep(now = Date.now()): Promise<RetentionCounts> {
    const counts = Object.fromEntries(TRIMMED.map((t) => [t.table, 0])) as RetentionCounts;
    if (this.options.retentionDays <= 0) return counts;
    const cutoff = now - this.options.retentionDays * DAY_MS;
    const partitioned = engineOf(this.db) === "postgres";
    for (const trimmed of TRIMMED) {
      if (this.stopped) break;
      if (!partitioned) {
        counts[trimmed.table] = await this.trim(trimmed, cutoff);
        continue;
      }
      const dropped = await this.dropPartitions(trimmed, cutoff);
      counts[trimmed.table] =
        dropped + (await this.trim(trimmed, await rowSweepCutoff(this.db, trimmed.partitioned, cutoff)));
    }
    return counts;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const run = this.sweep()
        .then((counts) => Object.values(counts).some((n) => n > 0) && this.options.onSwept?.(counts))
        .catch((err: unknown) => this.options.onError?.(err))
        .finally(() => {
          this.sweeping = undefined;
          if (!this.stopped) this.schedule(this.options.intervalMs ?? DEFAULT_RETENTION_INTERVAL_MS);
        });
      this.sweeping = run;
    }, delayMs);
    this.timer.unref();
  }

  /** Deletes one table's expired rows window by window; answers how many went. */
  private async trim(t: Trimmed, cutoff: number): Promise<number> {
    const ceiling = t.processedOnly ? await this.pipelineCursor() : undefined;
    if (ceiling === null) return 0;
    let after = 0;
    let total = 0;
    while (!this.stopped) {
      const end = await this.db
        .selectFrom(t.table)
        .select("id")
        .where("id", ">", after)
        .orderBy("id")
        .limit(1)
        .offset(this.batchRows - 1)
        .executeTakeFirst();
      const last = end === undefined ? undefined : Number(end.id);
      const window = [sql`id > ${after}`, sql`${sql.ref(t.time)} < ${cutoff}`];
      if (last !== undefined) window.push(sql`id <= ${last}`);
      if (ceiling !== undefined) window.push(sql`id <= ${ceiling}`);
      if (t.settledOnly) window.push(sql`${sql.ref("publishStatus")} != 1`);
      const where = sql<SqlBool>`${sql.join(window, sql` and `)}`;
      const remove = (db: Kysely<Database>) => db.deleteFrom(t.table).where(where).executeTakeFirst();
      const before = t.beforeDelete;
      const result = before
        ? await this.db.transaction().execute(async (tx) => {
            await before(tx, where);
            return remove(tx);
          })
        : await remove(this.db);
      const deleted = Number(result.numDeletedRows);
      total += deleted;
      if (last === undefined || (ceiling !== undefined && last >= ceiling)) break;
      if (deleted === 0 && !(t.settledOnly && (await this.anyExpired(t, after, last, cutoff)))) break;
      after = last;
      await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    }
    return total;
  }

  /**
   * PostgreSQL: drops the partitions wholly past the cutoff, but not one holding a row the row sweep would keep (a
   * command still waiting, an event the pipeline has not gone through, a value received within the window: values
   * are partitioned by their device time). Answers the rows dropped.
   */
  private async dropPartitions(t: Trimmed, cutoff: number): Promise<number> {
    let keep: DropRule["keep"];
    if (t.processedOnly) {
      const ceiling = await this.pipelineCursor();
      if (ceiling === null) return 0;
      keep = sql<SqlBool>`id > ${ceiling}`;
    } else if (t.settledOnly) keep = sql<SqlBool>`publish_status = 1`;
    else if (t.table === "pointValues") keep = sql<SqlBool>`received_at >= ${cutoff}`;
    return dropExpiredPartitions(this.db, { table: t.partitioned, keep, uplinkCounts: t.processedOnly }, cutoff);
  }

  /** Whether the window `(after, last]` holds a row older than the cutoff (one kept for another reason). */
  private async anyExpired(t: Trimmed, after: number, last: number, cutoff: number): Promise<boolean> {
    const row = await this.db
      .selectFrom(t.table)
      .select("id")
      .where("id", ">", after)
      .where("id", "<=", last)
      .where(sql.ref(t.time), "<", cutoff)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The id of the last event the pipeline went through; null before it ever ran. */
  private async pipelineCursor(): Promise<number | null> {
    const row = await this.db
      .selectFrom("settings")
      .select("value")
      .where("key", "=", PIPELINE_CURSOR_KEY)
      .executeTakeFirst();
    return row ? Number(row.value) : null;
  }
}
