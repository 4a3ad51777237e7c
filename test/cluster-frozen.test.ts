import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresEngine, type TestDatabase } from "@iot/registry/test-engines";
import { reachable, startFleet, type Fleet } from "../scripts/fleet.js";
import { apiOf, CLUSTER_PASSWORD, loadOn, sleep, storedOnce } from "./cluster-load.js";

/**
 * A central node that vanishes without closing its connections — its process frozen with SIGSTOP, as a hung host
 * or a dropped network looks to its peers — is left by its adapter within the 5 s failover bound (gRPC keepalive),
 * and shows gone to the other node within 10 s (heartbeats). Skipped (visibly) without PostgreSQL unless CI is set.
 */
const DEVICES = 4;
const WINDOW = 4;

describe.skipIf(!postgresEngine)("a frozen central node (SIGSTOP)", () => {
  let db: TestDatabase;
  let fleet: Fleet;
  let dataDir: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), "cluster-"));
    fleet = await startFleet(
      {
        IOT_DATABASE_URL: db.url,
        IOT_DATA_DIR: dataDir,
        IOT_API_HOST: "127.0.0.1",
        IOT_API_PORT: "0",
        IOT_GRPC_PORT: "0",
        IOT_MQTT_PORT: "0",
        IOT_MQTTS_PORT: "-1",
        IOT_MQTTSS_PORT: "-1",
        IOT_MQTT_WS_PORT: "-1",
        IOT_ADMIN_PASSWORD: CLUSTER_PASSWORD,
        IOT_LOG_LEVEL: "warn",
      },
      { nodes: 2, adapters: ["mqtt-adapter"] },
    );
  }, 120_000);
  afterAll(async () => {
    fleet?.centrals[0]?.child.kill("SIGCONT");
    await fleet?.stop();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("moves its adapter to the other node within 5 s under QoS 1 load, loses no acked uplink, and is seen gone within 10 s", async () => {
    const [first, second] = [await apiOf(fleet, 0), await apiOf(fleet, 1)];
    const frozenId = (await first("GET", "/health")).body.nodeId as string;
    const productID = (await second("POST", "/products", { productName: "frozen", cloudProtocol: 1 })).body.productID;
    const mqttUrl = reachable(fleet.adapters[0]!.urls.mqtt!);
    const clients: MqttClient[] = [];
    let closed = 0;
    for (let i = 0; i < DEVICES; i++) {
      const d = (
        await second("POST", "/devices", {
          productID,
          deviceName: `f${i}`,
          deviceType: 1,
          upLinkSystem: 1,
          authType: 1,
        })
      ).body;
      const c = await mqtt.connectAsync(mqttUrl, {
        clientId: d.deviceID,
        username: d.deviceUsername,
        password: d.token,
        protocolVersion: 4,
        reconnectPeriod: 0,
      });
      c.on("close", () => closed++);
      clients.push(c);
    }
    const mqttAdapters = (health: any) => (health.adapters as Array<{ sessions: number }>) ?? [];
    expect(mqttAdapters((await first("GET", "/health")).body)).toMatchObject([{ sessions: DEVICES }]);

    const load = loadOn(clients, WINDOW);
    try {
      await sleep(1000);
      expect(load.acked.length).toBeGreaterThan(0);
      fleet.centrals[0]!.child.kill("SIGSTOP");
      const frozenAt = performance.now();
      let movedAfterMs = Infinity;
      let goneAfterMs = Infinity;
      while (performance.now() - frozenAt < 12_000 && goneAfterMs === Infinity) {
        const health = (await second("GET", "/health")).body;
        const attached = mqttAdapters(health);
        if (movedAfterMs === Infinity && attached.length === 1 && attached[0]!.sessions === DEVICES)
          movedAfterMs = performance.now() - frozenAt;
        const state = (health.nodes as Array<{ nodeId: string; state: string }>).find((n) => n.nodeId === frozenId);
        if (state?.state === "gone") goneAfterMs = performance.now() - frozenAt;
        await sleep(100);
      }
      console.info(
        `frozen node: adapter on the other node after ${Math.round(movedAfterMs)} ms, node gone after ${Math.round(goneAfterMs)} ms`,
      );
      expect(movedAfterMs).toBeLessThan(5_000);
      expect(goneAfterMs).toBeLessThan(10_000);
      // Uplinks go on: once the frozen node's open transactions are ended by the server (5 s idle in transaction),
      // its row locks no longer hold the other node's writes.
      const atMove = load.acked.length;
      await expect.poll(() => load.acked.length, { timeout: 8_000 }).toBeGreaterThan(atMove + 10);
    } finally {
      await load.stop();
    }
    expect({ failed: load.failed, closed }).toEqual({ failed: [], closed: 0 });
    try {
      const { lost } = await storedOnce(db.url, dataDir, load.acked);
      expect(lost).toEqual([]);
    } finally {
      await Promise.all(clients.map((c) => c.endAsync()));
    }
  }, 60_000);
});
