import { sql, type Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../store/schema.js";

/** A running singleton job (schedules, the command sweep, retention, …): stopped when its lease is lost. */
export interface RunningJob {
  stop(): Promise<void>;
}

/** Starts a fresh instance of a job each time its lease is won (a stopped instance is never restarted). */
export type JobFactory = () => RunningJob | Promise<RunningJob>;

/** Timing of the leases. */
export interface JobLeaseOptions {
  /** How long a lease lasts past its last renewal, ms: a dead node's jobs move after at most this. Default 10 s. */
  ttlMs?: number;
  /** How often leases are renewed and free ones tried, ms. Default 2 s. */
  renewMs?: number;
}

interface Job {
  name: string;
  factory: JobFactory;
  running?: RunningJob | undefined;
  /** Epoch ms of the last renewal that succeeded (the lease is ours until it + ttl). */
  renewedAt: number;
}

/**
 * Runs each singleton job on exactly one node at a time. With `shared` (several nodes on PostgreSQL), a job runs
 * while this node holds its row in `cluster_leases`: taken when free or expired, renewed every `renewMs`, released
 * on a clean stop, and left to expire (`ttlMs`) when the node dies, so another node takes it over. A node that
 * cannot renew stops the job before its lease may have expired, so two nodes never run it at once. Without
 * `shared` (SQLite, one node) every job simply runs from `start()` to `stop()`.
 */
export class JobLeases {
  private readonly jobs: Job[] = [];
  private readonly ttlMs: number;
  private readonly renewMs: number;
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly nodeId: string,
    private readonly shared: boolean,
    private readonly logger: Logger,
    options: JobLeaseOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 10_000;
    this.renewMs = options.renewMs ?? 2_000;
  }

  /** Registers a job (before `start`). */
  add(name: string, factory: JobFactory): void {
    this.jobs.push({ name, factory, renewedAt: 0 });
  }

  /** Starts the jobs this node may run now, then keeps renewing. */
  async start(): Promise<void> {
    await (this.round = this.renewAll());
    this.timer = setInterval(() => {
      this.round = this.round.then(() => this.renewAll());
    }, this.renewMs);
    this.timer.unref();
  }

  /** The names of the jobs running on this node now. */
  held(): string[] {
    return this.jobs.filter((j) => j.running).map((j) => j.name);
  }

  /** Stops every job running here and frees its lease at once (a clean stop hands them over without waiting). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.round;
    await Promise.all(this.jobs.map((j) => this.halt(j)));
    if (this.shared)
      await this.db
        .deleteFrom("clusterLeases")
        .where("nodeId", "=", this.nodeId)
        .execute()
        .catch((err: unknown) => this.logger.warn({ err }, "releasing job leases failed"));
  }

  private async renewAll(now = Date.now()): Promise<void> {
    if (this.stopped) return;
    for (const job of this.jobs) {
      let ours = true;
      if (this.shared) {
        ours = await this.take(job.name, now).catch((err: unknown) => {
          this.logger.warn({ err, job: job.name }, "renewing a job lease failed");
          // Still ours while the last renewal is fresh enough that nobody else can have taken it.
          return job.running !== undefined && now - job.renewedAt < this.ttlMs - this.renewMs;
        });
        if (ours) job.renewedAt = now;
      }
      if (ours && !job.running && !this.stopped) {
        job.running = await Promise.resolve(job.factory()).catch((err: unknown) => {
          this.logger.error({ err, job: job.name }, "starting a job failed");
          return undefined;
        });
        if (job.running && this.shared) this.logger.info({ job: job.name }, "took over a singleton job");
      } else if (!ours && job.running) {
        this.logger.warn({ job: job.name }, "lost a singleton job's lease: stopped it here");
        await this.halt(job);
      }
    }
  }

  /** Takes or renews the lease row; true when this node holds it now. */
  private async take(name: string, now: number): Promise<boolean> {
    const { rows } = await sql<{ nodeId: string }>`
      insert into cluster_leases (name, node_id, expires_at) values (${name}, ${this.nodeId}, ${now + this.ttlMs})
      on conflict (name) do update set node_id = excluded.node_id, expires_at = excluded.expires_at
      where cluster_leases.node_id = excluded.node_id or cluster_leases.expires_at < ${now}
      returning node_id`.execute(this.db);
    return rows.length > 0;
  }

  private async halt(job: Job): Promise<void> {
    const running = job.running;
    job.running = undefined;
    await running?.stop().catch((err: unknown) => this.logger.error({ err, job: job.name }, "stopping a job failed"));
  }
}
