import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppDeps, Env } from "./deps.js";
import { errorResponse, notFound, onError } from "./errors.js";
import { RegistryError } from "@iot/registry";
import { requireCaller } from "./middleware/auth.js";
import { deviceRoutes } from "./routes/devices.js";
import { healthRoutes } from "./routes/health.js";
import { loginRoutes } from "./routes/login.js";
import { logRoutes } from "./routes/logs.js";
import { productRoutes } from "./routes/products.js";
import { publishRoutes } from "./routes/publish.js";

/** Largest request body accepted, bytes. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The management REST API under /api/v1. Health and login are open; every
 * other route needs a bearer token.
 */
export function createApp(deps: AppDeps) {
  const open = new Hono<Env>().route("/", healthRoutes(deps)).route("/", loginRoutes(deps));
  const secured = new Hono<Env>()
    .use("*", requireCaller(deps))
    .route("/", productRoutes(deps))
    .route("/", deviceRoutes(deps))
    .route("/", logRoutes(deps))
    .route("/", publishRoutes(deps));
  const app = new Hono<Env>()
    .use("*", bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => errorResponse(c, new RegistryError("PAYLOAD_TOO_LARGE", { body: `at most ${MAX_BODY_BYTES} bytes` })) }))
    .route("/api/v1", open)
    .route("/api/v1", secured);
  app.notFound(notFound);
  app.onError(onError(deps.logError));
  return app;
}
