import mqtt, { type MqttClient } from "mqtt";
import { openRegistryStore } from "@iot/registry";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, type TestDatabase } from "@iot/registry/test-engines";
import { clusterMqttEnv, reachable, startFleet, type Fleet } from "../scripts/fleet.js";

/** The administrator password the cluster tests give their nodes. */
export const CLUSTER_PASSWORD = "cluster-admin-pass";

/** What `useTwoNodeMqttFleet` started: read it inside the tests (it is filled before they run). */
export interface TwoNodeMqttFleet {
  db: TestDatabase;
  fleet: Fleet;
  dataDir: string;
}

/**
 * Before the file's tests, two central nodes on a fresh PostgreSQL database and one MQTT adapter given both; after
 * them, `beforeStop` (e.g. thawing a frozen node), then everything stopped and removed.
 */
export function useTwoNodeMqttFleet(beforeStop?: (fleet: Fleet) => void): TwoNodeMqttFleet {
  const started = {} as TwoNodeMqttFleet;
  beforeAll(async () => {
    started.db = await createTestDatabase();
    started.dataDir = mkdtempSync(join(tmpdir(), "cluster-"));
    started.fleet = await startFleet(clusterMqttEnv(started.db.url, started.dataDir, CLUSTER_PASSWORD), {
      nodes: 2,
      adapters: ["mqtt-adapter"],
    });
  }, 120_000);
  afterAll(async () => {
    if (started.fleet) beforeStop?.(started.fleet);
    await started.fleet?.stop();
    await started.db?.drop();
    if (started.dataDir) rmSync(started.dataDir, { recursive: true, force: true });
  });
  return started;
}

/** A logged-in REST client of one central node. */
export async function apiOf(fleet: Fleet, node: number) {
  const apiUrl = reachable(fleet.centrals[node]!.urls.api!);
  const token = await loginOn(apiUrl, "admin", CLUSTER_PASSWORD);
  return (method: string, path: string, body?: unknown) => callApi(apiUrl, token, method, path, body);
}

/** Creates `count` MQTT devices of a product through `api` and connects each (no reconnect); counts their closes. */
export async function connectDevices(
  api: Awaited<ReturnType<typeof apiOf>>,
  mqttUrl: string,
  productID: string,
  prefix: string,
  count: number,
) {
  const clients: MqttClient[] = [];
  let closed = 0;
  for (let i = 0; i < count; i++) {
    const d = (
      await api("POST", "/devices", {
        productID,
        deviceName: `${prefix}${i}`,
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
  return { clients, closed: () => closed };
}

/** QoS 1 publishes with unique payloads, `window` in flight per client, until stopped; counts acked and failed. */
export function loadOn(clients: MqttClient[], window: number) {
  const acked: string[] = [];
  const failed: string[] = [];
  let running = true;
  const lanes = clients.flatMap((client, d) => {
    let next = 0;
    return Array.from({ length: window }, async () => {
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

/** Every stored uplink payload, read from the database: which acked ones are missing, which are stored twice. */
export async function storedOnce(databaseUrl: string, dataDir: string, acked: readonly string[]) {
  const store = await openRegistryStore({ databaseUrl, dataDir });
  try {
    const rows = await store.db.selectFrom("deviceEvents").select(["payload"]).execute();
    const copies = new Map<string, number>();
    for (const r of rows) {
      const p = Buffer.from(r.payload).toString();
      copies.set(p, (copies.get(p) ?? 0) + 1);
    }
    return {
      duplicated: [...copies].filter(([, n]) => n > 1).map(([p]) => p),
      lost: acked.filter((p) => !copies.has(p)),
      stored: new Set(copies.keys()),
    };
  } finally {
    await store.close();
  }
}

/** A REST call to one node's API with a bearer token ("" for none). */
export async function callApi(apiUrl: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${apiUrl}/api/v1${path}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Logs in on one node's API: the token, or an error naming the answer. */
export async function loginOn(apiUrl: string, username: string, password: string): Promise<string> {
  const r = await callApi(apiUrl, "", "POST", "/login", { username, password });
  if (r.status !== 201) throw new Error(`login of ${username} failed: ${JSON.stringify(r.body)}`);
  return r.body.token as string;
}
