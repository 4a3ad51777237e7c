import { readFileSync } from "node:fs";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CENTRAL_NODE_ARGS, reachable } from "../scripts/fleet.js";
import { startTestFleet, type TestFleet } from "./helpers.js";

/** The fleet's metrics token: every scrape below must send it. */
const TOKEN = "e2e-metrics-token";
const auth = { authorization: `Bearer ${TOKEN}` };

let t: TestFleet;
let productID: string;

beforeAll(async () => {
  t = await startTestFleet({
    IOT_METRICS_TOKEN: TOKEN,
    IOT_METRICS_HOST: "127.0.0.1",
    IOT_MQTT_METRICS_PORT: "0",
    IOT_HTTP_METRICS_PORT: "0",
    IOT_COAP_METRICS_PORT: "0",
    IOT_LWM2M_METRICS_PORT: "0",
  });
  productID = (await t.api("POST", "/products", { productName: "metrics", cloudProtocol: 1 })).body.productID;
}, 90_000);
afterAll(() => t?.close());

/** The metrics URL an adapter announced on its READY line. */
const metricsUrl = (name: string) => {
  const url = t.fleet.adapters.find((a) => a.name === name)?.urls.metrics;
  if (!url) throw new Error(`${name} announced no metrics URL`);
  return reachable(url);
};
const centralMetricsUrl = () => `${reachable(t.fleet.central.urls.api!)}/metrics`;

async function scrape(url: string): Promise<string> {
  const res = await fetch(url, { headers: auth });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of one series (name with labels, as printed) in a scrape; 0 when absent. */
const sample = (body: string, series: string) =>
  Number(
    body
      .split("\n")
      .find((l) => l.startsWith(`${series} `))
      ?.slice(series.length + 1) ?? 0,
  );

describe("metrics of real processes", () => {
  it("every adapter serves its metrics on a port of its own, only with the token", async () => {
    const urls = ["mqtt-adapter", "http-adapter", "coap-adapter", "lwm2m-adapter"].map(metricsUrl);
    expect(new Set(urls.map((u) => new URL(u).port)).size).toBe(4);
    for (const [i, protocol] of ["mqtt", "http", "coap", "lwm2m"].entries()) {
      expect((await fetch(urls[i]!)).status).toBe(401);
      const body = await scrape(urls[i]!);
      expect(body).toContain(`iot_adapter_sessions{protocol="${protocol}"} 0`);
      expect(body).toContain(`iot_adapter_registry_connected{protocol="${protocol}"} 1`);
      for (const name of [
        "process_resident_memory_bytes",
        "nodejs_eventloop_lag_seconds",
        "nodejs_heap_size_used_bytes",
      ])
        expect(body, name).toMatch(new RegExp(`^${name} \\d`, "m"));
    }
    expect((await fetch(urls[0]!.replace("/metrics", "/other"), { headers: auth })).status).toBe(404);
    expect((await fetch(centralMetricsUrl())).status).toBe(401);
  });

  it("counts an MQTT device's session and acked uplink in its adapter and the central node", async () => {
    const d = (
      await t.api("POST", "/devices", { productID, deviceName: "m-1", deviceType: 1, upLinkSystem: 1, authType: 1 })
    ).body as { deviceID: string; deviceUsername: string; token: string };
    const adapterBefore = await scrape(metricsUrl("mqtt-adapter"));
    const centralBefore = await scrape(centralMetricsUrl());
    const acked = 'iot_adapter_uplinks_total{protocol="mqtt",outcome="acked"}';
    const ackLatency = 'iot_adapter_registry_ack_seconds_count{protocol="mqtt"}';
    const stored = 'iot_registry_uplinks_total{protocol="mqtt",outcome="stored"}';
    const client = await mqtt.connectAsync(t.mqttUrl, {
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
      protocolVersion: 4,
      reconnectPeriod: 0,
      connectTimeout: 5000,
    });
    try {
      for (let i = 0; i < 3; i++) await client.publishAsync("telemetry", JSON.stringify({ n: i }), { qos: 1 });
      const adapter = await scrape(metricsUrl("mqtt-adapter"));
      expect(sample(adapter, acked)).toBe(sample(adapterBefore, acked) + 3);
      expect(sample(adapter, ackLatency)).toBe(sample(adapterBefore, ackLatency) + 3);
      expect(sample(adapter, 'iot_adapter_sessions{protocol="mqtt"}')).toBe(1);
      expect(sample(adapter, 'iot_adapter_authentications_total{protocol="mqtt",outcome="ok"}')).toBeGreaterThan(0);
      const central = await scrape(centralMetricsUrl());
      expect(sample(central, stored)).toBe(sample(centralBefore, stored) + 3);
      expect(sample(central, 'iot_registry_sessions{protocol="mqtt"}')).toBe(1);
      expect(sample(central, "iot_uplink_write_batch_rows_sum")).toBeGreaterThanOrEqual(3);
      const health = (await t.api("GET", "/health")).body;
      expect(health.databaseHealth).toMatchObject({ engine: "sqlite", ok: true });
      expect(health.adapters).toContainEqual(
        expect.objectContaining({ protocol: 1, state: "attached", sessions: 1, connectedDevices: 1 }),
      );
    } finally {
      await client.endAsync();
    }
  });
});

describe("the central node's process", () => {
  it("runs with the young generation raised for ingest (CENTRAL_NODE_ARGS), the adapters without", () => {
    const options = (pid: number | undefined) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    expect(CENTRAL_NODE_ARGS).toContain("--max-semi-space-size=32");
    expect(options(t.fleet.central.child.pid)).toEqual(expect.arrayContaining([...CENTRAL_NODE_ARGS]));
    const adapter = t.fleet.adapters.find((a) => a.name === "mqtt-adapter")!;
    expect(options(adapter.child.pid)).not.toContain("--max-semi-space-size=32");
  });
});
