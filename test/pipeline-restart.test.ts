import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reachable, startProcess, stopProcess, type FleetProcess } from "../scripts/fleet.js";
import { freePort } from "./helpers.js";

/** Messages the device sends while the central node is killed and started again. */
const MESSAGES = 300;
/** QoS 1 publishes in flight at once. */
const WINDOW = 16;

describe("a central node crash under a publishing device", () => {
  let dataDir: string;
  let env: Record<string, string>;
  let central: FleetProcess;
  let adapter: FleetProcess;
  let api: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

  const startCentral = async () => {
    central = await startProcess("central", "packages/central/src/main.ts", env);
    const apiUrl = `${reachable(central.urls.api!)}/api/v1`;
    let token = "";
    api = async (method, path, body) => {
      const res = await fetch(`${apiUrl}${path}`, {
        method,
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: await res.json().catch(() => null) };
    };
    token = (await api("POST", "/login", { username: "admin", password: "crash-pass-1" })).body.token;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "pipeline-crash-"));
    env = {
      IOT_DATA_DIR: dataDir,
      IOT_DATABASE_URL: "",
      IOT_API_HOST: "127.0.0.1",
      IOT_API_PORT: "0",
      IOT_GRPC_PORT: String(await freePort()),
      IOT_MQTT_PORT: "0",
      IOT_MQTTS_PORT: "-1",
      IOT_MQTTSS_PORT: "-1",
      IOT_MQTT_WS_PORT: "-1",
      IOT_ADMIN_PASSWORD: "crash-pass-1",
      IOT_LOG_LEVEL: "warn",
    };
    await startCentral();
    adapter = await startProcess("mqtt-adapter", "packages/adapters/mqtt/src/main.ts", {
      ...env,
      IOT_REGISTRY_URL: `127.0.0.1:${env.IOT_GRPC_PORT}`,
    });
  }, 60_000);
  afterAll(async () => {
    if (adapter) await stopProcess(adapter);
    if (central) await stopProcess(central);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("leaves every value stored exactly once", async () => {
    const product = (await api("POST", "/products", { productName: "crash", cloudProtocol: 1 })).body;
    const seq = (
      await api("POST", "/data_points", {
        productIntID: product.id,
        dataPointName: "seq",
        dataPointID: "seq",
        pointDataType: 1,
        dataTransType: 1,
      })
    ).body;
    await api("POST", "/data_streams", {
      productIntID: product.id,
      streamName: "up",
      streamType: 1,
      streamDataType: 1,
      topic: "up",
      dataPoints: [seq.id],
    });
    const d = (
      await api("POST", "/devices", {
        productID: product.productID,
        deviceName: "counter",
        deviceType: 1,
        upLinkSystem: 1,
        authType: 1,
      })
    ).body;
    const client = await mqtt.connectAsync(reachable(adapter.urls.mqtt!), {
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
      protocolVersion: 4,
      reconnectPeriod: 0,
      keepalive: 60,
    });
    let next = 1;
    const lane = async () => {
      while (next <= MESSAGES) {
        const i = next++;
        await client.publishAsync("up", JSON.stringify({ seq: i, ts: Date.UTC(2026, 0, 1) + i }), { qos: 1 });
      }
    };
    const publishing = Promise.all(Array.from({ length: WINDOW }, lane));
    // Kill the central node (no graceful stop) once a third has gone out, then start it again.
    while (next < MESSAGES / 3) await new Promise((r) => setTimeout(r, 5));
    const exited = once(central.child, "exit");
    central.child.kill("SIGKILL");
    await exited;
    await startCentral();
    await publishing;
    const window = "start_time=2026-01-01 00:00:00&end_time=2026-01-02 00:00:00";
    const stored = async () =>
      ((await api("GET", `/original_data?deviceID=${d.deviceID}&${window}`)).body[0]?.originalData.value ??
        []) as number[];
    await expect.poll(async () => (await stored()).length, { timeout: 10_000 }).toBe(MESSAGES);
    const values = await stored();
    expect(values).toEqual(Array.from({ length: MESSAGES }, (_, i) => i + 1));
    await client.endAsync();
  }, 120_000);
});
