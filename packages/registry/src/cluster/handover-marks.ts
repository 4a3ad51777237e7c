import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../store/schema.js";

/** Longest wait from a hand-over to its write, ms: a group command's thousands share one statement. */
const FLUSH_DELAY_MS = 5;
/** Ids in one statement. */
const CHUNK = 1000;

/**
 * Writes `control_logs.handed_at` for the commands this node handed to its adapters, in batches (one statement per
 * few milliseconds, not one per command): the TTL sweep, on whichever node holds its lease, then waits for their
 * answers as the node that sent them would.
 */
export class HandoverMarks {
  private due = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly logger: Logger,
  ) {}

  /** The command went to an adapter at `at`. */
  mark(controlLogId: number, at: number): void {
    this.due.set(controlLogId, at);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.writing = this.writing.then(() => this.flush());
    }, FLUSH_DELAY_MS);
  }

  /** Writes what is pending (call before closing the store). */
  async stop(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.writing = this.writing.then(() => this.flush());
    }
    await this.writing;
  }

  private async flush(): Promise<void> {
    const due = this.due;
    this.due = new Map();
    // One statement per time stamp: a batch is usually one or two of them.
    const byTime = new Map<number, number[]>();
    for (const [id, at] of due) {
      const ids = byTime.get(at);
      if (ids) ids.push(id);
      else byTime.set(at, [id]);
    }
    try {
      for (const [at, ids] of byTime)
        for (let i = 0; i < ids.length; i += CHUNK)
          await this.db
            .updateTable("controlLogs")
            .set({ handedAt: at })
            .where("id", "in", ids.slice(i, i + CHUNK))
            .where("publishStatus", "=", 1)
            .execute();
    } catch (err) {
      this.logger.error({ err, commands: due.size }, "recording commands handed to adapters failed");
    }
  }
}
