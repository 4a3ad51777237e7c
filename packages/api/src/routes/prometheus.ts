import { Hono } from "hono";
import { scrapeMetrics } from "@iot/config";
import { defineRegistryMetrics } from "@iot/registry";
import type { AppDeps, Env } from "../deps.js";

/** Where Prometheus scrapes the central node: beside the API, not under /api/v1 (where `metrics` is a resource). */
const PROMETHEUS_PATH = "/metrics";

/**
 * `GET /metrics`: every metric of the central node's process in the Prometheus text format (registry counters and
 * histograms, process memory and event-loop lag). Open unless IOT_METRICS_TOKEN is set; then it needs
 * `Authorization: Bearer <token>` and answers 401 without it. Not part of the REST interface, so not in OpenAPI.
 */
export function prometheusRoute(deps: Pick<AppDeps, "metricsToken">) {
  defineRegistryMetrics();
  return new Hono<Env>().get(PROMETHEUS_PATH, async (c) => {
    const scrape = await scrapeMetrics(deps.metricsToken, c.req.header("authorization"));
    return c.body(scrape.body, scrape.status, { "content-type": scrape.contentType, ...scrape.headers });
  });
}
