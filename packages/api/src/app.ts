import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { RegistryError } from "@iot/registry";
import type { AppDeps, Env } from "./deps.js";
import { ApiDocs } from "./docs.js";
import { noRoute } from "./allowed-methods.js";
import { errorResponse, onError } from "./errors.js";
import { declaredBodyLimit } from "./request-body.js";
import { requireCaller } from "./middleware/auth.js";
import { readYourWrites } from "./middleware/read-your-writes.js";
import { configChanges } from "./middleware/config-changes.js";
import { applicationRoutes } from "./routes/applications.js";
import { certRoutes } from "./routes/certs.js";
import { deviceRoutes } from "./routes/devices.js";
import { gatewayRoutes } from "./routes/gateways.js";
import { groupRoutes } from "./routes/groups.js";
import { loraMulticastRoutes } from "./routes/lora-multicast.js";
import { healthRoutes } from "./routes/health.js";
import { prometheusRoute } from "./routes/prometheus.js";
import { loginRoutes } from "./routes/login.js";
import { logRoutes } from "./routes/logs.js";
import { openapiRoutes } from "./routes/openapi.js";
import { productRoutes } from "./routes/products.js";
import { publishRoutes } from "./routes/publish.js";
import { tenantRoutes } from "./routes/tenants.js";
import { userRoutes } from "./routes/users.js";
import { policyRoutes } from "./routes/policies.js";
import { devicePolicyRoutes } from "./routes/device-policies.js";
import { subscriptionRoutes } from "./routes/subscriptions.js";
import { retainedRoutes } from "./routes/retained.js";
import { alertRoutes } from "./routes/alerts.js";
import { dataPointRoutes } from "./routes/data-points.js";
import { dataStreamRoutes } from "./routes/data-streams.js";
import { metricRoutes } from "./routes/metrics.js";
import { productResourceRoutes } from "./routes/product-resources.js";
import { appTemplateRoutes } from "./routes/app-templates.js";
import { deviceDataRoutes } from "./routes/device-data.js";
import { taskRoutes } from "./routes/tasks.js";
import { scheduleRoutes } from "./routes/schedules.js";
import { deviceTransferRoutes } from "./routes/device-transfer.js";
import { FIRMWARE_UPLOAD_PATH, firmwareRoutes } from "./routes/firmwares.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { streamRoutes } from "./routes/stream.js";
import { viewMiddleware } from "./view.js";

/** Largest request body accepted, bytes. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The one route with a larger body limit of its own (an import file). */
const IMPORT_PATH = "/api/v1/devices_import";

/** Routes that need no caller. */
const openRoutes = [healthRoutes, loginRoutes];
/** Every resource's routes; each needs a bearer token or an application key. */
const securedRoutes = [
  productRoutes,
  deviceRoutes,
  gatewayRoutes,
  groupRoutes,
  loraMulticastRoutes,
  logRoutes,
  publishRoutes,
  applicationRoutes,
  tenantRoutes,
  userRoutes,
  certRoutes,
  policyRoutes,
  devicePolicyRoutes,
  subscriptionRoutes,
  retainedRoutes,
  alertRoutes,
  dataPointRoutes,
  dataStreamRoutes,
  metricRoutes,
  productResourceRoutes,
  appTemplateRoutes,
  deviceDataRoutes,
  taskRoutes,
  scheduleRoutes,
  deviceTransferRoutes,
  firmwareRoutes,
  webhookRoutes,
  streamRoutes,
];

/**
 * The management REST API under /api/v1, and Prometheus' `/metrics` beside it (open unless IOT_METRICS_TOKEN is
 * set). Health, login and the docs are open; every other route needs a caller. Each route declares itself in the
 * OpenAPI document as it is registered.
 */
export function createApp(deps: AppDeps) {
  const limit = declaredBodyLimit(
    MAX_BODY_BYTES,
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        errorResponse(c, new RegistryError("PAYLOAD_TOO_LARGE", { body: `at most ${MAX_BODY_BYTES} bytes` })),
    }),
  );
  const docs = new ApiDocs();
  const open = new Hono<Env>().route("/", openapiRoutes(docs));
  for (const routes of openRoutes) open.route("/", routes(deps, docs));
  const secured = new Hono<Env>()
    .use("*", requireCaller(deps))
    .use("*", configChanges(deps))
    .use("*", readYourWrites(deps));
  for (const routes of securedRoutes) secured.route("/", routes(deps, docs));
  const app = new Hono<Env>()
    .use("*", (c, next) =>
      c.req.path === IMPORT_PATH || c.req.path === FIRMWARE_UPLOAD_PATH ? next() : limit(c, next),
    )
    .use("*", viewMiddleware(deps))
    .route("/", prometheusRoute(deps))
    .route("/api/v1", open)
    .route("/api/v1", secured);
  app.notFound(noRoute(() => app.routes));
  app.onError(onError({ error: deps.logError, debug: deps.logDebug ?? (() => {}) }));
  return app;
}

/**
 * The API's OpenAPI document without a running service, for client generators (the CLI's typed client): the routes
 * are declared with inert dependencies, which declaring never calls, and the document is read back.
 */
export async function openApiDocument(form: "1" | "2" = "1"): Promise<unknown> {
  const inert = { loginMaxFailures: 1, loginWindowSeconds: 1, form, store: { db: {} } } as unknown as AppDeps;
  const res = await createApp(inert).request("/api/v1/openapi.json");
  return res.json();
}
