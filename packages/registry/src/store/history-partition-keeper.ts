import type { Kysely } from "kysely";
import { ensurePartitions } from "./history-partitions.js";
import type { Database } from "./schema.js";

/** Default pause between two rounds, ms (one hour): partitions are made PARTITIONS_AHEAD spans ahead. */
const DEFAULT_KEEPER_INTERVAL_MS = 3_600_000;

/** How the keeper runs. */
export interface HistoryPartitionKeeperOptions {
  /** Days one partition holds (IOT_HISTORY_PARTITION_DAYS). */
  spanDays: number;
  /** Pause between rounds, ms. Default one hour. */
  intervalMs?: number | undefined;
  /** A round failed; the next one runs on schedule. */
  onError?: ((err: unknown) => void) | undefined;
}

/**
 * PostgreSQL, run by the node holding the `history-partitions` lease: makes the history tables' partitions of the
 * current and next spans (ensurePartitions), at start and then every `intervalMs`, so rows land in their day's
 * partition rather than the default one. The store makes them at its opening too.
 */
export class HistoryPartitionKeeper {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: HistoryPartitionKeeperOptions,
  ) {}

  /** Makes what is missing now; answers how many partitions it made. */
  runOnce(now = Date.now()): Promise<number> {
    return ensurePartitions(this.db, { spanDays: this.options.spanDays, now });
  }

  /** Runs a round now and then every interval (unref'd timer). */
  start(): void {
    const round = () => {
      this.#running = this.runOnce().catch((err: unknown) => this.options.onError?.(err));
    };
    round();
    this.#timer = setInterval(round, this.options.intervalMs ?? DEFAULT_KEEPER_INTERVAL_MS);
    this.#timer.unref();
  }

  /** Stops the rounds; waits for one under way. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }
}
