import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { sweepExpiredSessions } from "./mqtt-sessions.js";

/** Default pause between two sweeps of expired MQTT sessions, ms. */
const DEFAULT_SESSION_SWEEP_MS = 60_000;

/**
 * Deletes persistent MQTT sessions past their expiry time, every `intervalMs`. Only room is at stake: a connect
 * already treats an expired session as gone.
 */
export class MqttSessionSweeper {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: { intervalMs?: number; onError?: (err: unknown) => void } = {},
  ) {}

  start(): void {
    if (this.timer) return;
    let busy = false;
    this.timer = setInterval(() => {
      if (busy) return;
      busy = true;
      this.sweeping = sweepExpiredSessions(this.db, Date.now())
        .catch((err: unknown) => this.options.onError?.(err))
        .finally(() => (busy = false));
    }, this.options.intervalMs ?? DEFAULT_SESSION_SWEEP_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping;
  }
}
