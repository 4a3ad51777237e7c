import type { Context } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import { RegistryError } from "@iot/registry";
import { errorResponse, notFound } from "./errors.js";

/** A route as Hono lists it in `app.routes`; middlewares are there too, with the method `ALL`. */
interface RegisteredRoute {
  method: string;
  path: string;
}

/**
 * The methods each path answers, read from the app's registered routes (never a table written beside them): a router
 * of its own matches a path against every method's routes. HEAD is answered wherever GET is (Hono runs the GET
 * handler and drops the body).
 */
function allowedMethods(routes: readonly RegisteredRoute[]): (path: string) => string[] {
  const router = new TrieRouter<true>();
  const methods = new Set<string>();
  for (const { method, path } of routes) {
    if (method === "ALL") continue;
    router.add(method, path, true);
    methods.add(method);
  }
  return (path) => {
    const allow = [...methods].filter((m) => router.match(m, path)[0].length > 0);
    if (allow.includes("GET")) allow.push("HEAD");
    return allow.sort();
  };
}

/**
 * The app's answer when no route matched: 405 METHOD_NOT_ALLOWED with `Allow` when the path exists under other
 * methods, else 404 DATA_NOT_FOUND naming the url. `routes` is read at the first miss, once every route is registered.
 */
export function noRoute(routes: () => readonly RegisteredRoute[]) {
  let allowOf: ((path: string) => string[]) | undefined;
  return (c: Context) => {
    allowOf ??= allowedMethods(routes());
    const allow = allowOf(c.req.path);
    if (allow.length === 0) return notFound(c);
    c.header("Allow", allow.join(", "));
    return errorResponse(
      c,
      new RegistryError("METHOD_NOT_ALLOWED", { method: `${c.req.method} is not allowed; use ${allow.join(", ")}` }),
    );
  };
}
