import { timingSafeEqual } from "node:crypto";
import { Counter, Gauge, Histogram, collectDefaultMetrics, register } from "prom-client";
import { text } from "./settings.js";

export type { Counter, Gauge, Histogram } from "prom-client";

/**
 * Prometheus metrics shared by every process (prom-client's process-wide registry). Metrics are created on first
 * use and found again by name afterwards, so a module loaded twice, or two nodes in one test process, share them
 * instead of throwing on a duplicate name; counts then add up, which is why tests compare before and after.
 */

/** IOT_METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`; unset, metrics are open. */
export const metricsTokenSetting = text(
  "IOT_METRICS_TOKEN",
  undefined,
  "Bearer token a Prometheus scrape of /metrics must send; unset: metrics are open to whoever reaches the port.",
);

/** A counter by name: the existing one, else a new one with these labels. */
export function counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return (register.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames });
}

/**
 * A gauge by name: the existing one, else a new one with these labels; `collect`, when given, sets its values at
 * each scrape (for values read from a live object rather than counted).
 */
export function gauge<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  collect?: (this: Gauge<L>) => void,
): Gauge<L> {
  return (
    (register.getSingleMetric(name) as Gauge<L> | undefined) ??
    new Gauge({ name, help, labelNames, ...(collect ? { collect } : {}) })
  );
}

/** A histogram by name: the existing one, else a new one with these labels and bucket bounds. */
export function histogram<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets: number[],
): Histogram<L> {
  return (
    (register.getSingleMetric(name) as Histogram<L> | undefined) ?? new Histogram({ name, help, labelNames, buckets })
  );
}

/** Latency buckets, seconds: 1 ms to 10 s. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

let defaultsOn = false;

/**
 * Turns on prom-client's default process metrics once per process: CPU, resident memory and heap
 * (`process_resident_memory_bytes`, `nodejs_heap_size_used_bytes`), event-loop lag (`nodejs_eventloop_lag_seconds`
 * and its percentiles), handles, GC. Idempotent.
 */
export function enableDefaultMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ eventLoopMonitoringPrecision: 10 });
}

/** A rendered scrape: the Prometheus text exposition format (0.0.4). */
export interface MetricsScrape {
  status: 200 | 401;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

/** True when the Authorization header carries the metrics token (or no token is required). */
export function metricsAuthorized(token: string | undefined, authorization: string | undefined | null): boolean {
  if (!token) return true;
  const given = Buffer.from(/^Bearer (.+)$/i.exec(authorization ?? "")?.[1] ?? "");
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** Answers one scrape: every metric of the process, or 401 when the token is required and wrong. */
export async function scrapeMetrics(
  token: string | undefined,
  authorization: string | undefined | null,
): Promise<MetricsScrape> {
  if (!metricsAuthorized(token, authorization)) {
    return {
      status: 401,
      contentType: "text/plain; charset=utf-8",
      body: "metrics need Authorization: Bearer <IOT_METRICS_TOKEN>\n",
      headers: { "www-authenticate": 'Bearer realm="metrics"' },
    };
  }
  return { status: 200, contentType: register.contentType, body: await register.metrics() };
}

/**
 * The current value of a metric summed over the series whose labels include `labels` (0 when the metric does not
 * exist); for a histogram pass `le` ("+Inf" counts observations). For tests and diagnostics.
 */
export async function metricValue(name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = register.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  return values
    .filter((v) =>
      Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want),
    )
    .filter((v) => labels.le !== undefined || !("le" in v.labels))
    .reduce((sum, v) => sum + v.value, 0);
}
