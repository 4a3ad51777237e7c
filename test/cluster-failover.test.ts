import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "@iot/registry";
import { createTestDatabase, postgresEngine, type TestDatabase } from "@iot/registry/test-engines";
import { reachable, startFleet, type Fleet } from "../scripts/fleet.js";

const PASSWORD = "cluster-admin-pass";
const DEVICES = 8;
/** Unacknowledged QoS 1 publishes each device keeps in flight. */
const WINDOW = 8;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A logged-in REST client of one central node. */
async function apiOf(fleet: Fleet, node: number) {
  const base = `${reachable(fleet.centrals[node]!.urls.api!)}/api/v1`;
  let token = "";
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
  token = (await call("POST", "/login", { username: "admin", password: PASSWORD })).body.token;
  return call;
}

/** QoS 1 publishes with unique payloads until stopped; counts what was PUBACKed and what failed. */
function loadOn(clients: MqttClient[]) {
  const acked: string[] = [];
  const failed: string[] = [];
  let running = true;
  const lanes = clients.flatMap((client, d) => {
    let next = 0;
    return Array.from({ length: WINDOW }, async () => {
      while (running) {
        const payload = `d${d}-${next++}`;
        await client.publishAsync("telemetry", payload, { qos: 1 }).then(
          () => acked.push(payload),
          (err: Error) => failed.push(`${payload}: ${err.message}`),
        );
      }
    });
  });
  return {
    acked,
    failed,
    /** Stops publishing and waits for every publish in flight to be answered. */
    async stop() {
      running = false;
      await Promise.all(lanes);
    },
  };
}

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
        IOT_ADMIN_PASSWORD: PASSWORD,
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

    const load = loadOn(clients);
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

    let store: Store | undefined;
    try {
      store = await openStore({ databaseUrl: db.url, dataDir });
      const rows = await store.db.selectFrom("deviceEvents").select(["payload"]).execute();
      const stored = rows.map((r) => Buffer.from(r.payload).toString());
      const copies = new Map<string, number>();
      for (const p of stored) copies.set(p, (copies.get(p) ?? 0) + 1);
      const duplicated = [...copies].filter(([, n]) => n > 1).map(([p]) => p);
      const lost = load.acked.filter((p) => !copies.has(p));
      expect({ duplicated, lost }).toEqual({ duplicated: [], lost: [] });
      expect(new Set(stored)).toEqual(new Set(load.acked));
      // The devices stay online: the other node took their sessions over.
      const devices = (await second("GET", `/devices?productID=${productID}&_limit=100`)).body;
      expect(devices.items.map((d: { deviceStatus: number }) => d.deviceStatus)).toEqual(Array(DEVICES).fill(1));
    } finally {
      await store?.close();
      await Promise.all(clients.map((c) => c.endAsync()));
    }
  }, 90_000);
});
