import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reachable } from "../scripts/fleet.js";
import { startTestFleet, type TestFleet } from "./helpers.js";

const TOKEN = "e2e-warm-up-metrics";
let t: TestFleet;

beforeAll(async () => {
  t = await startTestFleet(
    {
      IOT_LOG_LEVEL: "info",
      IOT_METRICS_TOKEN: TOKEN,
      IOT_METRICS_HOST: "127.0.0.1",
      IOT_MQTT_METRICS_PORT: "0",
      IOT_MQTT_WARMUP_CONNECTS: "500",
    },
    { adapters: ["mqtt-adapter"] },
  );
}, 90_000);
afterAll(() => t?.close());

const mqttAdapter = () => t.fleet.adapters.find((a) => a.name === "mqtt-adapter")!;

async function adapterMetrics(): Promise<string> {
  const res = await fetch(reachable(mqttAdapter().urls.metrics!), { headers: { authorization: `Bearer ${TOKEN}` } });
  return res.text();
}

describe("the MQTT adapter process's connect path warm-up", () => {
  it("runs its warm-up devices through the connect path before it listens, and none of them reaches the registry", async () => {
    const warmed = mqttAdapter()
      .errors.map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === "connect path warmed up");
    expect(warmed).toMatchObject({ connects: 500, admitted: 500, published: 500 });
    // The registry client saw none of them: no authentication, session or uplink counted, none at the central node.
    const metrics = await adapterMetrics();
    expect(metrics).not.toMatch(/^iot_adapter_authentications_total\{/m);
    expect(metrics).not.toMatch(/^iot_adapter_uplinks_total\{/m);
    expect(metrics).toContain('iot_adapter_sessions{protocol="mqtt"} 0');
    const health = (await t.api("GET", "/health")).body;
    expect(health.adapters).toContainEqual(expect.objectContaining({ protocol: 1, sessions: 0, connectedDevices: 0 }));
    expect((await t.api("GET", "/devices")).body.meta.count).toBe(0);
  });

  it("then serves a real device as usual", async () => {
    const productID = (await t.api("POST", "/products", { productName: "warm", cloudProtocol: 1 })).body.productID;
    const d = await t.newDevice(productID, "after-warm-up");
    const { port } = new URL(t.mqttUrl);
    execFileSync("mosquitto_pub", [
      ...["-h", "127.0.0.1", "-p", port, "-i", d.deviceID, "-u", d.deviceUsername, "-P", d.token],
      ...["-q", "1", "-t", "data", "-m", '{"t":1}'],
    ]);
    await expect.poll(async () => (await t.api("GET", `/devices/${d.id}/events`)).body.meta.count).toBe(1);
    expect(await adapterMetrics()).toContain('iot_adapter_authentications_total{protocol="mqtt",outcome="ok"} 1');
  });
});
