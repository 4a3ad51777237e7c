import { register } from "prom-client";
import { describe, expect, it } from "vitest";
import {
  counter,
  enableDefaultMetrics,
  gauge,
  histogram,
  metricValue,
  metricsAuthorized,
  scrapeMetrics,
  tallyHistogram,
} from "./metrics.js";

describe("metrics helpers", () => {
  it("answer the metric already registered under a name instead of throwing on a duplicate", () => {
    const a = counter("test_helpers_total", "a test counter", ["kind"]);
    const b = counter("test_helpers_total", "a test counter", ["kind"]);
    expect(b).toBe(a);
    expect(gauge("test_helpers_gauge", "g", [])).toBe(gauge("test_helpers_gauge", "g", []));
    expect(histogram("test_helpers_seconds", "h", [], [1])).toBe(histogram("test_helpers_seconds", "h", [], [1]));
  });

  it("read a gauge's collect callback at each scrape", async () => {
    let value = 3;
    gauge("test_collected", "collected at scrape", [], function () {
      this.set(value);
    });
    expect((await scrapeMetrics(undefined, undefined)).body).toMatch(/^test_collected 3$/m);
    value = 5;
    expect((await scrapeMetrics(undefined, undefined)).body).toMatch(/^test_collected 5$/m);
  });

  it("turn on the process metrics once: memory, heap and event-loop lag", async () => {
    enableDefaultMetrics();
    enableDefaultMetrics();
    const body = await register.metrics();
    for (const name of ["process_resident_memory_bytes", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_seconds"])
      expect(body).toContain(`# TYPE ${name} gauge`);
    expect(body.match(/^# TYPE process_resident_memory_bytes /gm)).toHaveLength(1);
  });
});

describe("scrapeMetrics", () => {
  it("answers the Prometheus text format with counts that move", async () => {
    const c = counter("test_scrape_total", "scrape test", ["outcome"]);
    c.inc({ outcome: "ok" }, 2);
    const s = await scrapeMetrics(undefined, undefined);
    expect(s.status).toBe(200);
    expect(s.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(s.body).toContain("# HELP test_scrape_total scrape test");
    expect(s.body).toMatch(/^test_scrape_total\{outcome="ok"\} 2$/m);
    c.inc({ outcome: "ok" });
    expect((await scrapeMetrics(undefined, undefined)).body).toMatch(/^test_scrape_total\{outcome="ok"\} 3$/m);
  });

  it("refuses a scrape without the token when one is set, and serves one with it", async () => {
    const refused = await scrapeMetrics("s3cret", undefined);
    expect(refused.status).toBe(401);
    expect(refused.headers?.["www-authenticate"]).toContain("Bearer");
    expect(refused.body).not.toContain("# TYPE");
    expect((await scrapeMetrics("s3cret", "Bearer wrong!")).status).toBe(401);
    expect((await scrapeMetrics("s3cret", "Bearer s3cret")).status).toBe(200);
  });

  it("compares the token exactly: a prefix, another scheme or no token at all is refused", () => {
    expect(metricsAuthorized("abc", "Bearer ab")).toBe(false);
    expect(metricsAuthorized("abc", "Basic abc")).toBe(false);
    expect(metricsAuthorized("abc", null)).toBe(false);
    expect(metricsAuthorized("abc", "bearer abc")).toBe(true);
    expect(metricsAuthorized(undefined, undefined)).toBe(true);
  });
});

describe("tallyHistogram", () => {
  it("scrapes exactly as prom-client's histogram of the same observations, and metricValue reads it", async () => {
    const buckets = [0.001, 0.01, 0.1, 1];
    const observed = [0.0005, 0.001, 0.002, 0.05, 0.05, 0.5, 3, 0];
    const theirs = histogram("test_tally_reference_seconds", "tally test", ["protocol"], buckets);
    const ours = tallyHistogram("test_tally_seconds", "tally test", buckets);
    const series = ours.series({ protocol: "mqtt" });
    for (const v of observed) {
      theirs.observe({ protocol: "mqtt" }, v);
      series.observe(v);
    }
    const lines = async (name: string) =>
      (await register.getSingleMetricAsString(name)).replaceAll(name, "NAME").split("\n");
    expect(await lines("test_tally_seconds")).toEqual(await lines("test_tally_reference_seconds"));
    expect((await scrapeMetrics(undefined, undefined)).body).toMatch(
      /^test_tally_seconds_count\{protocol="mqtt"\} 8$/m,
    );
    expect(await metricValue("test_tally_seconds", { protocol: "mqtt", le: "0.01" })).toBe(4);
    expect(tallyHistogram("test_tally_seconds", "tally test", buckets)).toBe(ours);
    expect(ours.series({ protocol: "mqtt" })).toBe(series);
    expect(() => series.observe(Number.NaN)).toThrow(/not a valid number/);
    expect(() => tallyHistogram("test_tally_reference_seconds", "x", buckets)).toThrow(/not a TallyHistogram/);
  });
});
