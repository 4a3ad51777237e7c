import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Hono } from "hono";
import type { Env } from "../deps.js";
import type { ApiDocs } from "../docs.js";

/** Swagger UI's files come from the swagger-ui-dist package: the docs work with no network. */
const assetsDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const ASSETS: Record<string, string> = { "swagger-ui.css": "text/css", "swagger-ui-bundle.js": "text/javascript" };

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Device management API</title>
<link rel="stylesheet" href="/api/v1/docs/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/api/v1/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: "/api/v1/openapi.json", dom_id: "#ui" });</script></body></html>`;

/** `GET /openapi.json` (OpenAPI 3.1 of every endpoint) and `GET /docs` (interactive docs); no auth. */
export function openapiRoutes(docs: ApiDocs) {
  let cached: object | undefined;
  return new Hono<Env>()
    .get("/openapi.json", (c) =>
      c.json(
        (cached ??= docs.document({
          title: "Device management API",
          version: "1",
          description: "Multi-tenant device management: products, devices, gateways, groups, commands, logs.",
        })),
      ),
    )
    .get("/docs", (c) => c.html(page))
    .get("/docs/:file", (c) => {
      const file = c.req.param("file");
      const type = ASSETS[file];
      if (!type) return c.notFound();
      return c.body(readFileSync(join(assetsDir, file)), 200, {
        "content-type": type,
        "cache-control": "public, max-age=86400",
      });
    });
}
