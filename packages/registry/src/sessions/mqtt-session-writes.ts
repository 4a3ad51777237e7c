import type { Kysely } from "kysely";
import { GroupCommit } from "../router/group-commit.js";
import type { Database } from "../store/schema.js";

/** One write of persistent MQTT session state, run inside a transaction it shares with others. */
export type SessionWrite = (tx: Kysely<Database>) => Promise<void>;

/**
 * The writes of persistent MQTT sessions (mqtt-sessions.ts), from every adapter stream and authentication, in shared
 * transactions (GroupCommit), in the order they were queued: a reconnect storm opens and ends thousands of sessions a
 * second, and a transaction each (its commit and sync) held up the adapters' streams behind them.
 */
export class SessionWrites {
  private readonly commits: GroupCommit<SessionWrite, undefined>;

  constructor(db: Kysely<Database>) {
    this.commits = new GroupCommit(db, async (tx, writes) => {
      for (const write of writes) await write(tx);
      return writes.map(() => undefined);
    });
  }

  /** Queues a write; resolves once its transaction is durable (rejects when that transaction failed). */
  run(write: SessionWrite): Promise<undefined> {
    return this.commits.add(write);
  }

  /** Waits for every queued write. */
  idle(): Promise<void> {
    return this.commits.idle();
  }
}
