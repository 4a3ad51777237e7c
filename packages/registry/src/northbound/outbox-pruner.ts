import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { pruneEvents } from "./events.js";
import { engineOf } from "../store/multi-row-insert.js";
import { dropExpiredPartitions, rowSweepCutoff } from "../store/partition-retention.js";

/** The outbox's partitions are dropped whatever their rows. */
const OUTBOX = { table: "northbound_events" } as const;

/** How often the outbox is pruned, ms. */
const PRUNE_INTERVAL_MS = 60_000;

/**
 * Bounds the outbox: deletes events, and webhook delivery records, older than `retentionMs`, in batches, once a
 * minute. This window is also how far back `Last-Event-ID` can resume a stream and how long a failing webhook or a
 * NATS outage can fall behind before events are lost to it (docs/northbound.md).
 */
export class OutboxPruner {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly retentionMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Prunes now; answers how many events and delivery records went. */
  async pruneOnce(now = Date.now()): Promise<{ events: number; deliveries: number }> {
    const before = now - this.retentionMs;
    // PostgreSQL: the outbox's partitions wholly past the window go whole (migration 0034), the rest row by row.
    // PostgreSQL: the outbox's partitions wholly past the window go whole (migration 0034); the partition at the
    // edge waits for its turn, so only the default partition's rows are deleted one by one.
    const pg = engineOf(this.db) === "postgres";
    let events = pg ? await dropExpiredPartitions(this.db, OUTBOX, before) : 0;
    const rowsBefore = pg ? await rowSweepCutoff(this.db, OUTBOX.table, before) : before;
    for (let n = -1; n !== 0; events += n) n = await pruneEvents(this.db, rowsBefore);
    const r = await this.db.deleteFrom("webhookDeliveries").where("createAt", "<", before).executeTakeFirst();
    return { events, deliveries: Number(r.numDeletedRows) };
  }

  /** Prunes once a minute (unref'd timer). */
  start(): void {
    this.#timer = setInterval(() => {
      this.#running = this.pruneOnce().then(() => undefined, this.onError);
    }, PRUNE_INTERVAL_MS);
    this.#timer.unref();
  }

  /** Stops pruning; waits for a prune under way. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }
}
