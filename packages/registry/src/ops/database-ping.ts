import { sql } from "kysely";
import type { Store } from "../store/store.js";

/** How long a health check waits for the database, ms: past it the database counts as down. */
export const PING_TIMEOUT_MS = 2_000;

/** The database's state as the health endpoint reports it. */
export interface DatabaseHealth {
  engine: Store["engine"];
  /** True when `select 1` answered within the timeout. */
  ok: boolean;
  /** Round trip of `select 1`, ms (to the timeout when it did not answer). */
  latencyMs: number;
  /** Why it is not ok. */
  error?: string;
}

/** Runs `select 1` on the store, bounded by `timeoutMs`; never throws. */
export async function pingDatabase(store: Pick<Store, "db" | "engine">, timeoutMs = PING_TIMEOUT_MS) {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  const done = (error?: unknown): DatabaseHealth => ({
    engine: store.engine,
    ok: error === undefined,
    latencyMs: Math.round((performance.now() - started) * 100) / 100,
    ...(error === undefined ? {} : { error: error instanceof Error ? error.message : JSON.stringify(error) }),
  });
  try {
    await Promise.race([sql`select 1`.execute(store.db), timeout]);
    return done();
  } catch (err) {
    return done(err);
  } finally {
    clearTimeout(timer);
  }
}
