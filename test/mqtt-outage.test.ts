import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reachable, startProcess, stopProcess, type FleetProcess } from "../scripts/fleet.js";

/** A port free right now (the central node must come back on the same gRPC port). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe("a central node restart under a connected device", () => {
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
    token = (await api("POST", "/login", { username: "admin", password: "outage-pass-1" })).body.token;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "outage-"));
    env = {
      IOT_DATA_DIR: dataDir, IOT_DATABASE_URL: "", IOT_API_HOST: "127.0.0.1", IOT_API_PORT: "0", IOT_GRPC_PORT: String(await freePort()),
      IOT_MQTT_PORT: "0", IOT_MQTTS_PORT: "0", IOT_MQTTSS_PORT: "0", IOT_MQTT_WS_PORT: "0",
      IOT_ADMIN_PASSWORD: "outage-pass-1", IOT_LOG_LEVEL: "warn",
    };
    await startCentral();
    adapter = await startProcess("mqtt-adapter", "packages/adapters/mqtt/src/main.ts", { ...env, IOT_REGISTRY_URL: `127.0.0.1:${env.IOT_GRPC_PORT}` });
  }, 60_000);
  afterAll(async () => {
    if (adapter) await stopProcess(adapter);
    if (central) await stopProcess(central);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps the device connected, holds its QoS 1 acks, and stores every message exactly once after the restart", async () => {
    const productID = (await api("POST", "/products", { productName: "outage", cloudProtocol: 1 })).body.productID;
    const d = (await api("POST", "/devices", { productID, deviceName: "survivor", deviceType: 1, upLinkSystem: 1, authType: 1 })).body;
    const client = await mqtt.connectAsync(reachable(adapter.urls.mqtt!), { clientId: d.deviceID, username: d.deviceUsername, password: d.token, reconnectPeriod: 0, keepalive: 30 });
    let closed = false;
    client.on("close", () => (closed = true));
    try {
      await client.publishAsync("t", "before", { qos: 1 });
      expect(await stopProcess(central), central.errors.join("\n")).toBe(0);

      // The registry is away: the adapter keeps the session and holds the PUBACKs.
      let acked = 0;
      const during = Array.from({ length: 5 }, (_, i) => client.publishAsync("t", `during-${i}`, { qos: 1 }).then(() => acked++));
      await new Promise((r) => setTimeout(r, 1500));
      expect(acked).toBe(0);
      expect(closed).toBe(false);

      await startCentral();
      await Promise.all(during);
      await client.publishAsync("t", "after", { qos: 1 });
      const events = (await api("GET", `/devices/${d.id}/events?_limit=100`)).body;
      const payloads = events.items.map((e: { payload: string }) => e.payload).sort();
      expect(payloads).toEqual(["after", "before", "during-0", "during-1", "during-2", "during-3", "during-4"]);
      expect(events.meta.count).toBe(7);
      expect(closed).toBe(false);
      expect((await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
    } finally {
      await client.endAsync();
    }
  });
});
