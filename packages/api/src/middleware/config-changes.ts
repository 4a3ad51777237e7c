import type { MiddlewareHandler } from "hono";
import type { AppDeps, Env } from "../deps.js";

/** Resources the gateways' pushed configurations are built from (devices, data points, gateways, products). */
const SOURCES = /^\/api\/v1\/(devices|gateways|data_points|products)(\/|$)/;

/**
 * After a successful write to a resource that pushed gateway configurations are built from, tells the registry
 * the caller's tenant changed; it compares and pushes what differs. One hook here instead of one per route, so a
 * new write route cannot forget it.
 */
export function configChanges(deps: AppDeps): MiddlewareHandler<Env> {
  return async (c, next) => {
    await next();
    if (c.req.method === "GET" || c.res.status >= 400 || !SOURCES.test(c.req.path)) return;
    deps.configChanges.tenantChanged(c.get("caller").tenantId);
  };
}
