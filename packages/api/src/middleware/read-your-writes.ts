import type { Context, MiddlewareHandler } from "hono";
import type { Caller, Store } from "@iot/registry";
import type { AppDeps, Env } from "../deps.js";

/** The key a caller's writes are remembered by: its user (every token and application key of one user share it). */
const writerKey = (caller: Caller) => `${caller.tenantId}/${caller.userIntId}`;

/**
 * With read replicas (IOT_DATABASE_READ_URL): after every request that may have written (any method but GET and
 * HEAD, answered or refused), remembers the primary's WAL position for its caller before the answer leaves, so that
 * the caller's next list and history reads go to a replica only once it has replayed that far (`readsFor`).
 */
export function readYourWrites(deps: AppDeps): MiddlewareHandler<Env> {
  return async (c, next) => {
    await next();
    const reads = deps.store.reads;
    if (!reads || c.req.method === "GET" || c.req.method === "HEAD") return;
    // A primary that fails here failed the write's answer already, or will fail the next read: nothing to add.
    await reads.wrote(writerKey(c.get("caller"))).catch(() => {});
  };
}

/**
 * Runs a list or history read for the request's caller: on a read replica that has this caller's last write, else on
 * the primary (deps.store.db). Writes, and reads inside a write, never come here: they use deps.store.db.
 */
export function readsFor<T>(deps: AppDeps, c: Context<Env>, query: (db: Store["db"]) => Promise<T>): Promise<T> {
  const reads = deps.store.reads;
  return reads ? reads.read(writerKey(c.get("caller")), query) : query(deps.store.db);
}
