import type { MiddlewareHandler } from "hono";
import { parseBasicAuth } from "@iot/config";
import { callerFromAppKey, callerFromClaims, fail, type Caller } from "@iot/registry";
import { verifyToken } from "../bearer-token.js";
import type { AppDeps, Env } from "../deps.js";
import { headerOf } from "../request-body.js";

const REQUIRED = "Authorization: Bearer <token> or Basic <base64(appID:appToken)> required";

/** The caller named by an Authorization header: a user's bearer token or an application key. */
async function callerOf(deps: AppDeps, header: string): Promise<Caller> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer) {
    const claims = await verifyToken(bearer[1]!, deps.tokenSecret);
    if (!claims) throw fail.auth("Token invalid or expired");
    return callerFromClaims(deps.store.db, claims);
  }
  const key = parseBasicAuth(header);
  if (key) return callerFromAppKey(deps.store.db, key.username, key.password);
  throw fail.auth(REQUIRED);
}

/**
 * Requires `Authorization: Bearer <token>` (a user) or `Basic
 * base64(appID:appToken)` (an application key, acting as its tenant with its
 * role) and puts the caller in the context; anything else is AUTH_FAILED.
 * Viewers may only read: any other method answers 403; and they read records without their secrets (View.secrets).
 */
export function requireCaller(deps: AppDeps): MiddlewareHandler<Env> {
  return async (c, next) => {
    const caller = await callerOf(deps, headerOf(c, "authorization") ?? "");
    if (caller.role === "viewer" && !["GET", "HEAD"].includes(c.req.method)) throw fail.denied("Viewers may only read");
    c.set("caller", caller);
    c.set("view", { ...c.get("view"), secrets: caller.role !== "viewer" });
    await next();
  };
}
