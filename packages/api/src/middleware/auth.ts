import type { MiddlewareHandler } from "hono";
import { callerFromToken, fail } from "@iot/registry";
import type { AppDeps, Env } from "../deps.js";

/**
 * Requires `Authorization: Bearer <token>` and puts the caller in the
 * context. Viewers may only read: any other method answers 403.
 */
export function requireCaller(deps: AppDeps): MiddlewareHandler<Env> {
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw fail.auth("Authorization: Bearer <token> required");
    const caller = await callerFromToken(deps.store.db, deps.tokenSecret, match[1]!);
    if (caller.role === "viewer" && !["GET", "HEAD"].includes(c.req.method)) throw fail.denied("Viewers may only read");
    c.set("caller", caller);
    await next();
  };
}
