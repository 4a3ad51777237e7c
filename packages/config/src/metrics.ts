import { timingSafeEqual } from "node:crypto";
import { Counter, Gauge, Histogram, collectDefaultMetrics, register, type Metric } from "prom-client";
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

/** One label set's counts in a TallyHistogram; `observe` is all a hot path calls. */
export interface TallySeries {
  observe(value: number): void;
}

/** One line of a scrape, as prom-client's registry takes it from a metric's `get()`. */
interface ScrapeValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

interface Tally extends TallySeries {
  readonly labels: Record<string, string>;
  /** Observations per bucket (not cumulative), by bucket index. */
  readonly counts: number[];
  sum: number;
  count: number;
}

/**
 * A histogram for values observed tens of thousands of times a second: each label set's series is taken once and
 * counts in plain arrays, and the cumulative buckets are made only at scrape time. prom-client's `observe` checks and
 * hashes the labels and allocates for every value (a per-uplink ack latency made it a visible share of the MQTT
 * adapter's CPU profile). Registered in prom-client's registry, so scrapes and `metricValue` read it like any
 * histogram, in the same exposition.
 */
export class TallyHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly #series = new Map<string, Tally>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {
    register.registerMetric(this as unknown as Metric);
  }

  /** The series of one label set (made on first use; keep it for the hot path). */
  series(labels: Record<string, string>): TallySeries {
    const key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
    let tally = this.#series.get(key);
    if (tally === undefined) {
      const bounds = this.buckets;
      const made: Tally = {
        labels: { ...labels },
        counts: bounds.map(() => 0),
        sum: 0,
        count: 0,
        observe(value) {
          if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
          let i = 0;
          while (i < bounds.length && value > bounds[i]!) i++;
          if (i < bounds.length) made.counts[i]!++;
          made.sum += value;
          made.count++;
        },
      };
      tally = made;
      this.#series.set(key, tally);
    }
    return tally;
  }

  /** What prom-client's registry renders: the cumulative buckets, sum and count of each series. */
  get(): Promise<{ name: string; help: string; type: "histogram"; values: ScrapeValue[]; aggregator: "sum" }> {
    const values: ScrapeValue[] = [];
    for (const s of this.#series.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i]!;
        values.push({ labels: { le, ...s.labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: "+Inf", ...s.labels }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    });
  }

  reset(): void {
    for (const s of this.#series.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}

/** A TallyHistogram by name: the existing one, else a new one with these bucket bounds. */
export function tallyHistogram(name: string, help: string, buckets: readonly number[]): TallyHistogram {
  const existing = register.getSingleMetric(name);
  if (existing instanceof TallyHistogram) return existing;
  if (existing) throw new Error(`metric ${name} exists and is not a TallyHistogram`);
  return new TallyHistogram(name, help, buckets);
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
