import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresEngine, type TestDatabase } from "@iot/registry/test-engines";
import { reachable, startFleet, type Fleet } from "../scripts/fleet.js";
import { apiOf, CLUSTER_PASSWORD, loadOn, sleep, storedOnce } from "./cluster-load.js";

const DEVICES = 8;
/** Unacknowledged QoS 1 publishes each device keeps in flight. */
const WINDOW = 8;

describe.skipIf(!postgresEngine)("two central nodes over one PostgreSQL, an MQTT adapter given both", () => {
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
    await fleet?.stop();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("moves the adapter to the other node within 5 s of a kill -9 under QoS 1 load, keeps the devices connected, and stores every PUBACKed message exactly once", async () => {
    const [first, second] = [await apiOf(fleet, 0), await apiOf(fleet, 1)];
    const productID = (await second("POST", "/products", { productName: "failover", cloudProtocol: 1 })).body.productID;
    const mqttUrl = reachable(fleet.adapters[0]!.urls.mqtt!);
    const clients: MqttClient[] = [];
    let closed = 0;
    for (let i = 0; i < DEVICES; i++) {
      const d = (
        await second("POST", "/devices", {
          productID,
          deviceName: `d${i}`,
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
    const mqttAdapters = (health: any) => (health.adapters as Array<{ protocolLabel: string; sessions: number }>) ?? [];
    // The adapter starts on the first address it was given: the first node.
    expect(mqttAdapters((await first("GET", "/health")).body)).toMatchObject([{ sessions: DEVICES }]);
    expect(mqttAdapters((await second("GET", "/health")).body)).toEqual([]);

    const load = loadOn(clients, WINDOW);
    try {
      await sleep(1500);
      const beforeKill = load.acked.length;
      expect(beforeKill).toBeGreaterThan(0);
      fleet.centrals[0]!.child.kill("SIGKILL");
      const killedAt = performance.now();
      let movedAfterMs = Infinity;
      while (performance.now() - killedAt < 10_000) {
        const attached = mqttAdapters((await second("GET", "/health")).body);
        if (attached.length === 1 && attached[0]!.sessions === DEVICES) {
          movedAfterMs = performance.now() - killedAt;
          break;
        }
        await sleep(50);
      }
      expect(movedAfterMs).toBeLessThan(5_000);
      console.info(`adapter re-attached to the other node ${Math.round(movedAfterMs)} ms after the kill -9`);
      // Uplinks were in flight when the node died: the adapter replayed them to the other node.
      const logs = fleet.adapters[0]!.errors.flatMap((l) => (l.startsWith("{") ? [JSON.parse(l)] : [])) as Array<{
        msg?: string;
        pendingUplinks?: number;
      }>;
      expect(logs.find((l) => l.msg === "registry stream lost; reconnecting")?.pendingUplinks).toBeGreaterThan(0);
      const atMove = load.acked.length;
      await sleep(1500);
      expect(load.acked.length).toBeGreaterThan(atMove);
    } finally {
      await load.stop();
    }
    expect(load.failed).toEqual([]);
    expect(closed).toBe(0);
    for (const c of clients) expect(c.connected).toBe(true);

    try {
      const { duplicated, lost, stored } = await storedOnce(db.url, dataDir, load.acked);
      expect({ duplicated, lost }).toEqual({ duplicated: [], lost: [] });
      expect(stored).toEqual(new Set(load.acked));
      // The devices stay online: the other node took their sessions over.
      const devices = (await second("GET", `/devices?productID=${productID}&_limit=100`)).body;
      expect(devices.items.map((d: { deviceStatus: number }) => d.deviceStatus)).toEqual(Array(DEVICES).fill(1));
    } finally {
      await Promise.all(clients.map((c) => c.endAsync()));
    }
  }, 90_000);
});
