import { sql, type Kysely } from "kysely";
import type { Database } from "./schema.js";
import { PrimaryPositions, parseLsn } from "./replica-lag.js";

/** One streaming replica the store reads from: its name for logs, health and metrics (no password) and its pool. */
export interface ReplicaConnection {
  readonly name: string;
  readonly db: Kysely<Database>;
}

/** What health and metrics show of one replica. */
export interface ReplicaStatus {
  /** `host:port`. */
  name: string;
  /** up: serves reads; lagging: behind by more than the bound; down: unreachable or not a replica. */
  state: "up" | "lagging" | "down";
  /** Seconds behind the primary at the last poll (undefined before the first answer). */
  lagSeconds?: number | undefined;
  /** WAL bytes behind the primary at the last poll. */
  lagBytes?: number | undefined;
  /** Why it is down. */
  error?: string | undefined;
}

/** How the replicas are watched. */
export interface ReadReplicaOptions {
  /** A replica further behind than this, seconds, is skipped until it catches up. */
  maxLagSeconds: number;
  /** Period of the lag poll, ms. Default 1000. */
  pollMs?: number;
  /** Told once when a replica leaves or rejoins the reads (never per request). */
  log?: (level: "warn" | "info", message: string) => void;
}

/** Default period of the lag poll, ms. */
const DEFAULT_REPLICA_POLL_MS = 1_000;

/** Most callers whose last write is remembered; the oldest are forgotten first (they read from the primary then). */
const MAX_WRITERS = 100_000;

/** pg errors saying the connection or server is gone, or that recovery cancelled the query: retried on the primary. */
const REPLICA_FAULT = /^(08|57|53|58|40001|XX)/;

/** SQLSTATE of a query a replica cancelled because replaying the primary's changes needed its rows. */
const RECOVERY_CONFLICT = "40001";

interface Replica extends ReplicaConnection {
  /** Replay position of the last poll or check; -1 before the first. */
  replayed: number;
  state: ReplicaStatus["state"];
  lagSeconds?: number | undefined;
  lagBytes?: number | undefined;
  error?: string | undefined;
}

/**
 * Routes the REST API's list and history reads to PostgreSQL streaming replicas (IOT_DATABASE_READ_URL), with
 * read-your-writes by WAL position: after a caller's write the primary's position (`pg_current_wal_lsn()`) is kept
 * for that caller, and its reads use only a replica whose replay position (`pg_last_wal_replay_lsn()`) has reached
 * it, else the primary. Replicas are polled for their lag; one unreachable, no longer in recovery (promoted), or more
 * than `maxLagSeconds` behind is skipped until it is back, each change logged once. A read the replica fails with a
 * connection or recovery-conflict error is run again on the primary.
 */
export class ReadReplicas {
  private readonly replicas: Replica[];
  private readonly writers = new Map<string, number>();
  private readonly primaryPositions: PrimaryPositions;
  private readonly timer: NodeJS.Timeout;
  private polling: Promise<void> | undefined;
  private next = 0;
  private closed = false;

  constructor(
    private readonly primary: Kysely<Database>,
    replicas: readonly ReplicaConnection[],
    private readonly options: ReadReplicaOptions,
  ) {
    this.replicas = replicas.map((r) => ({ ...r, replayed: -1, state: "down", error: "not polled yet" }));
    this.primaryPositions = new PrimaryPositions(Math.max(options.maxLagSeconds * 2_000, 10_000));
    this.timer = setInterval(() => void this.poll(), options.pollMs ?? DEFAULT_REPLICA_POLL_MS);
    this.timer.unref();
  }

  /** The replicas' state at the last poll. */
  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({
      name: r.name,
      state: r.state,
      lagSeconds: r.lagSeconds,
      lagBytes: r.lagBytes,
      ...(r.error === undefined ? {} : { error: r.error }),
    }));
  }

  /** Remembers the primary's WAL position after a write of `caller`, so its next reads see that write. */
  async wrote(caller: string): Promise<void> {
    const lsn = await currentLsn(this.primary);
    this.writers.delete(caller);
    this.writers.set(caller, lsn);
    if (this.writers.size > MAX_WRITERS) this.writers.delete(this.writers.keys().next().value!);
  }

  /**
   * Runs the read `query` for `caller` on a replica that is up and has replayed the caller's last write, else on the
   * primary; `caller` undefined reads from any replica that is up.
   */
  async read<T>(caller: string | undefined, query: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    const replica = await this.pick(caller === undefined ? undefined : this.writers.get(caller));
    if (replica === undefined) return query(this.primary);
    try {
      return await query(replica.db);
    } catch (error) {
      if (!isReplicaFault(error)) throw error;
      // A recovery conflict cancelled this one query; the replica itself is fine.
      if ((error as { code?: unknown }).code !== RECOVERY_CONFLICT) this.down(replica, describe(error));
      return query(this.primary);
    }
  }

  /** Polls every replica now (the timer does so every pollMs); resolves when done. */
  poll(): Promise<void> {
    this.polling ??= this.pollAll().finally(() => (this.polling = undefined));
    return this.polling;
  }

  /** Stops polling and closes the replicas' pools (not the primary's). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.polling;
    await Promise.all(this.replicas.map((r) => r.db.destroy()));
  }

  /** A replica for a read that must see position `needed` (undefined: any), round robin among those that qualify. */
  private async pick(needed: number | undefined): Promise<Replica | undefined> {
    const up = this.replicas.filter((r) => r.state === "up");
    if (up.length === 0) return undefined;
    const start = this.next++ % up.length;
    const order = [...up.slice(start), ...up.slice(0, start)];
    if (needed === undefined) return order[0];
    const ready = order.find((r) => r.replayed >= needed);
    if (ready !== undefined) return ready;
    // The last poll is older than the write: ask the first replica where it is now (one short query).
    const first = order[0]!;
    try {
      first.replayed = Math.max(first.replayed, await replayLsn(first.db));
    } catch (error) {
      this.down(first, describe(error));
      return undefined;
    }
    return first.replayed >= needed ? first : undefined;
  }

  private async pollAll(): Promise<void> {
    if (this.closed) return;
    let primaryLsn: number;
    try {
      primaryLsn = await currentLsn(this.primary);
    } catch {
      return; // the primary's own state is the health report's database part
    }
    const now = Date.now();
    this.primaryPositions.record(now, primaryLsn);
    await Promise.all(this.replicas.map((r) => this.pollOne(r, primaryLsn, now)));
    // Writes every replica has replayed need no primary reads any more.
    const oldest = Math.min(...this.replicas.map((r) => (r.state === "up" ? r.replayed : -1)));
    for (const [caller, lsn] of this.writers) if (lsn <= oldest) this.writers.delete(caller);
  }

  private async pollOne(r: Replica, primaryLsn: number, now: number): Promise<void> {
    let replayed: number;
    try {
      replayed = await replayLsn(r.db);
    } catch (error) {
      this.down(r, describe(error));
      return;
    }
    r.replayed = Math.max(replayed, r.replayed);
    r.lagBytes = Math.max(0, primaryLsn - r.replayed);
    r.lagSeconds = this.primaryPositions.lagSeconds(r.replayed, now);
    if (r.lagSeconds > this.options.maxLagSeconds) {
      if (r.state !== "lagging") {
        this.options.log?.(
          "warn",
          `read replica ${r.name} is ${r.lagSeconds.toFixed(1)} s behind the primary (bound ${this.options.maxLagSeconds} s): its reads go to the primary until it catches up`,
        );
      }
      r.state = "lagging";
      r.error = undefined;
      return;
    }
    if (r.state !== "up") this.options.log?.("info", `read replica ${r.name} serves reads`);
    r.state = "up";
    r.error = undefined;
  }

  private down(r: Replica, error: string): void {
    if (r.state !== "down" || r.error === "not polled yet") {
      this.options.log?.("warn", `read replica ${r.name} skipped, its reads go to the primary: ${error}`);
    }
    r.state = "down";
    r.error = error;
    r.replayed = -1;
    r.lagSeconds = undefined;
    r.lagBytes = undefined;
  }
}

/** The primary's current WAL position. */
async function currentLsn(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(db);
  return parseLsn(rows[0]!.lsn);
}

/** A replica's replay position; throws when the server is not (or no longer) a replica. */
async function replayLsn(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ lsn: string | null }>`select pg_last_wal_replay_lsn()::text as lsn`.execute(db);
  const lsn = rows[0]?.lsn;
  if (lsn == null) throw new Error("not a streaming replica (pg_last_wal_replay_lsn() is null: promoted or a primary)");
  return parseLsn(lsn);
}

/** Whether a failed read says the replica (not the query) is at fault. */
function isReplicaFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") return REPLICA_FAULT.test(code) || code.startsWith("E");
  return error instanceof Error && /connection|terminat|timeout/i.test(error.message);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.message || ((error as NodeJS.ErrnoException).code ?? error.name);
}
