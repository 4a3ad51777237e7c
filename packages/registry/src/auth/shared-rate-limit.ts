import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { FailureLimiter, type FailureLimiterOptions } from "./rate-limit.js";

/** The login rate limit as the login route uses it: one process's memory, or the database shared by every node. */
export interface LoginLimiter {
  /** Milliseconds until any of `keys` may try again; 0 when none is blocked. */
  blockedFor(keys: readonly string[]): Promise<number>;
  /** Records one failure against every key; answers its time (for `forgive`). */
  fail(keys: readonly string[]): Promise<number>;
  /** Takes back the failure recorded at `at` from each key. */
  forgive(keys: readonly string[], at: number): Promise<void>;
  /** Forgets a key's failures. */
  reset(key: string): Promise<void>;
}

/** The single-node limiter: a FailureLimiter in memory. */
export function memoryLoginLimiter(options: FailureLimiterOptions): LoginLimiter {
  const limiter = new FailureLimiter(options);
  return {
    blockedFor: (keys) => Promise.resolve(limiter.blockedFor(keys)),
    fail: (keys) => Promise.resolve(limiter.fail(keys)),
    forgive: (keys, at) => Promise.resolve(limiter.forgive(keys, at)),
    reset: (key) => Promise.resolve(limiter.reset(key)),
  };
}

/** How often old failures are deleted, ms. */
const PRUNE_EVERY_MS = 60_000;

/**
 * The limiter of several nodes: failures are rows of `login_failures`, so a guesser spreading attempts over the
 * nodes meets the same limit as on one (same rule as FailureLimiter: `maxFailures` within the sliding `windowMs`
 * blocks until the oldest leaves the window). Rows past the window are deleted once a minute.
 */
export function databaseLoginLimiter(
  db: Kysely<Database>,
  options: Pick<FailureLimiterOptions, "maxFailures" | "windowMs" | "now">,
): LoginLimiter {
  const now = options.now ?? (() => Date.now());
  let prunedAt = 0;
  return {
    async blockedFor(keys) {
      const t = now();
      const rows = await db
        .selectFrom("loginFailures")
        .select(["key", "at"])
        .where("key", "in", keys)
        .where("at", ">", t - options.windowMs)
        .orderBy("at", "desc")
        .execute();
      let wait = 0;
      for (const key of keys) {
        const times = rows.filter((r) => r.key === key).map((r) => r.at);
        // Blocked until the failure that makes it maxFailures-th newest leaves the window.
        if (times.length >= options.maxFailures)
          wait = Math.max(wait, times[options.maxFailures - 1]! + options.windowMs - t);
      }
      return wait;
    },
    async fail(keys) {
      const t = now();
      await db
        .insertInto("loginFailures")
        .values(keys.map((key) => ({ key, at: t })))
        .execute();
      if (t - prunedAt >= PRUNE_EVERY_MS) {
        prunedAt = t;
        await db
          .deleteFrom("loginFailures")
          .where("at", "<=", t - options.windowMs)
          .execute();
      }
      return t;
    },
    async forgive(keys, at) {
      await db.deleteFrom("loginFailures").where("key", "in", keys).where("at", "=", at).execute();
    },
    async reset(key) {
      await db.deleteFrom("loginFailures").where("key", "=", key).execute();
    },
  };
}
