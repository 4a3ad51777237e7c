import type { MiddlewareHandler } from "hono";
import { callerFromAppKey, callerFromToken, fail, type Caller } from "@iot/registry";
import type { AppDeps, Env } from "../deps.js";
import { headerOf } from "../request-body.js";

const REQUIRED = "Authorization: Bearer <token> or Basic <base64(appID:appToken)> required";

/** Splits `base64(appID:appToken)`; undefined when it is not that shape. */
function appKeyOf(encoded: string): { appId: string; appToken: string } | undefined {
  const text = Buffer.from(encoded, "base64").toString("utf8");
  const colon = text.indexOf(":");
  if (colon < 1 || colon === text.length - 1 || text.length > 300) return undefined;
  return { appId: text.slice(0, colon), appToken: text.slice(colon + 1) };
}

/** The caller named by an Authorization header: a user's bearer token or an application key. */
async function callerOf(deps: AppDeps, header: string): Promise<Caller> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer) return callerFromToken(deps.store.db, deps.tokenSecret, bearer[1]!);
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
  const key = basic && appKeyOf(basic[1]!);
  if (key) return callerFromAppKey(deps.store.db, key.appId, key.appToken);
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
