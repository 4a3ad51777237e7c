import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mqtt, { type MqttClient } from "mqtt";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRegistryStore, type Store } from "@iot/registry";
import { createTestDatabase, postgresEngine, type TestDatabase } from "@iot/registry/test-engines";
import { reachable, startProcess, stopProcess, type FleetProcess } from "../scripts/fleet.js";
import { callApi, CLUSTER_PASSWORD, loginOn } from "./cluster-load.js";
import { rawConnect, rawDevice } from "./raw-mqtt.js";

/**
 * Two central nodes on one PostgreSQL database, each with its own MQTT adapter (A's adapter attached only to node A,
 * B's only to node B): what must hold across nodes for device sessions — a device seen through both at once ends
 * with one session, a tenant's maxConnections counts both nodes' connections, and the command TTL sweep on one node
 * waits for the answer to a command the other handed to its adapter, and a persistent MQTT session resumes on the
 * other node. Skipped (visibly) without PostgreSQL unless CI.
 */
const run = randomBytes(3).toString("hex");
const processes: FleetProcess[] = [];
const dirs: string[] = [];

interface Side {
  nodeId: string;
  api: string;
  /** The MQTT adapter attached to this node only. */
  mqttUrl: string;
  mqttPort: number;
}

describe.skipIf(!postgresEngine)("device sessions across two central nodes", () => {
  let db: TestDatabase;
  let store: Store;
  let a: Side;
  let b: Side;
  let token = "";
  let productID = "";
  let n = 0;
  const call = (side: Side, method: string, path: string, body?: unknown) =>
    callApi(side.api, token, method, path, body);

  async function startSide(name: string): Promise<Side> {
    const dataDir = mkdtempSync(join(tmpdir(), "cluster-"));
    dirs.push(dataDir);
    const nodeId = `${name}-${run}`;
    const node = await startProcess(`central-${name}`, "packages/central/src/main.ts", {
      IOT_DATA_DIR: dataDir,
      IOT_DATABASE_URL: db.url,
      IOT_NODE_ID: nodeId,
      IOT_API_HOST: "127.0.0.1",
      IOT_API_PORT: "0",
      IOT_GRPC_PORT: "0",
      IOT_ADMIN_USERNAME: "admin",
      IOT_ADMIN_PASSWORD: CLUSTER_PASSWORD,
      // Short enough for the sweep test (its sweep runs every 500 ms).
      IOT_COMMAND_TTL: "2",
      IOT_LOG_LEVEL: "warn",
    });
    processes.push(node);
    const adapter = await startProcess(`mqtt-${name}`, "packages/adapters/mqtt/src/main.ts", {
      IOT_REGISTRY_URL: reachable(node.urls.grpc!),
      IOT_MQTT_PORT: "0",
      IOT_MQTTS_PORT: "-1",
      IOT_MQTTSS_PORT: "-1",
      IOT_MQTT_WS_PORT: "-1",
      IOT_LOG_LEVEL: "warn",
    });
    processes.push(adapter);
    const mqttUrl = reachable(adapter.urls.mqtt!);
    return { nodeId, api: reachable(node.urls.api!), mqttUrl, mqttPort: Number(new URL(mqttUrl).port) };
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    // Started together: nodes starting at once take turns on the database under an advisory lock.
    [a, b] = await Promise.all([startSide("a"), startSide("b")]);
    token = await loginOn(a.api, "admin", CLUSTER_PASSWORD);
    productID = (await call(a, "POST", "/products", { productName: "sessions", cloudProtocol: 1 })).body.productID;
    store = await openRegistryStore({ databaseUrl: db.url, dataDir: dirs[0]! });
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    // Adapters first (they report their sessions closed), then the nodes.
    const adapters = processes.filter((p) => p.name.startsWith("mqtt-"));
    await Promise.all(adapters.map((p) => stopProcess(p).catch(() => undefined)));
    await Promise.all(processes.filter((p) => !adapters.includes(p)).map((p) => stopProcess(p).catch(() => undefined)));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await db?.drop();
  }, 60_000);

  type Device = { id: number; deviceID: string; deviceUsername: string; token: string };
  const newDevice = async (product = productID, as = token): Promise<Device> => {
    const r = await callApi(a.api, as, "POST", "/devices", {
      productID: product,
      deviceName: `d-${n++}`,
      deviceType: 1,
      upLinkSystem: 1,
      authType: 1,
    });
    expect(r.status).toBe(201);
    return r.body;
  };
  const sessionRows = async (d: Device) =>
    (await store.db.selectFrom("clusterSessions").select("nodeId").where("deviceIntId", "=", d.id).execute()).map(
      (r) => r.nodeId,
    );

  /** An MQTT connection that is not retried; `closed` turns true when the service ends it. */
  function connect(side: Side, d: Device) {
    const client: MqttClient = mqtt.connect(side.mqttUrl, {
      protocolVersion: 4,
      reconnectPeriod: 0,
      connectTimeout: 5000,
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
    });
    const state = { client, side, closed: false, received: [] as string[] };
    client.on("close", () => (state.closed = true));
    client.on("message", (_t, payload) => state.received.push(payload.toString()));
    return state;
  }

  /** Both connections raced; exactly one survives, holds the one session row, and gets a command issued on A. */
  async function expectOneSession(d: Device, pair: Array<ReturnType<typeof connect>>) {
    await expect.poll(() => pair.filter((c) => c.closed).length, { timeout: 8_000 }).toBe(1);
    const survivor = pair.find((c) => !c.closed)!;
    await expect.poll(() => sessionRows(d), { timeout: 5_000 }).toEqual([survivor.side.nodeId]);
    // Still one a moment later: the takeover settled, nothing bounced back.
    await quietFor(500, "a takeover bouncing back would close the survivor within this");
    expect(pair.filter((c) => c.closed)).toHaveLength(1);
    expect(await sessionRows(d)).toEqual([survivor.side.nodeId]);
    for (const side of [a, b]) expect((await call(side, "GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
    await survivor.client.subscribeAsync("inbox", { qos: 1 });
    const r = await call(a, "POST", "/device_publish", { deviceID: d.deviceID, payload: `to-${d.deviceID}` });
    expect(r.status).toBe(201);
    await expect.poll(() => survivor.received, { timeout: 5_000 }).toEqual([`to-${d.deviceID}`]);
    await survivor.client.endAsync();
    return survivor;
  }

  it("keeps one session of a device that reconnects through the other node while its first connection is alive", async () => {
    const d = await newDevice();
    const first = connect(a, d);
    await expect.poll(() => sessionRows(d), { timeout: 5_000 }).toEqual([a.nodeId]);
    const second = connect(b, d);
    // The newer connection is the one kept (MQTT's client-id takeover, across nodes).
    expect(await expectOneSession(d, [first, second])).toBe(second);
  });

  it("ends with one session when a device connects through both nodes at the same moment", async () => {
    for (let round = 0; round < 3; round++) {
      const d = await newDevice();
      await expectOneSession(d, [connect(a, d), connect(b, d)]);
    }
  });

  it("counts a tenant's maxConnections across both nodes", async () => {
    const tenant = (await call(a, "POST", "/tenants", { tenantName: `Q-${run}`, maxConnections: 2 })).body;
    const user = { username: `q-${run}`, password: "q-admin-pass-1", role: "admin", tenantID: tenant.tenantID };
    expect((await call(a, "POST", "/users", user)).status).toBe(201);
    const qToken = await loginOn(b.api, user.username, user.password);
    const qProduct = (await callApi(b.api, qToken, "POST", "/products", { productName: "q", cloudProtocol: 1 })).body
      .productID;
    const [d1, d2, d3] = [
      await newDevice(qProduct, qToken),
      await newDevice(qProduct, qToken),
      await newDevice(qProduct, qToken),
    ];
    const creds = (d: Device) => ({ clientId: d.deviceID, username: d.deviceUsername, password: d.token });
    const one = await rawConnect(a.mqttPort, creds(d1));
    const two = await rawConnect(a.mqttPort, creds(d2));
    try {
      expect([one.code, two.code]).toEqual([0, 0]);
      await expect
        .poll(async () => [...(await sessionRows(d1)), ...(await sessionRows(d2))])
        .toEqual([a.nodeId, a.nodeId]);
      // Node B holds none of the tenant's connections, yet the third device is refused there (CONNACK 3).
      const three = await rawConnect(b.mqttPort, creds(d3));
      three.socket.destroy();
      expect(three.code).toBe(3);
      // A device already connected on node A may still reconnect through node B (its old session is replaced).
      const again = await rawConnect(b.mqttPort, creds(d1));
      again.socket.destroy();
      expect(again.code).toBe(0);
    } finally {
      one.socket.destroy();
      two.socket.destroy();
    }
  });

  it("records the late answer to a command handed over on the node that does not run the TTL sweep", async () => {
    const jobs = async (side: Side) => (await call(side, "GET", "/health")).body.jobs as string[];
    await expect.poll(async () => [...(await jobs(a)), ...(await jobs(b))]).toContain("command-expiry");
    // The device connects through the node that does not sweep: only its adapter knows the command is in flight.
    const holder = (await jobs(a)).includes("command-expiry") ? a : b;
    const other = holder === a ? b : a;
    const d = await newDevice();
    const got: string[] = [];
    const creds = { clientId: d.deviceID, username: d.deviceUsername, password: d.token };
    // The device answers 3.5 s after it got the command: past the 2 s TTL, within the in-flight grace.
    const device = await rawDevice(other.mqttPort, creds, ["inbox"], (p) => got.push(p.toString()), 3_500);
    try {
      await expect.poll(() => sessionRows(d)).toEqual([other.nodeId]);
      const r = await call(holder, "POST", "/device_publish", { deviceID: d.deviceID, payload: "slow", qos: 1 });
      expect(r.status).toBe(201);
      await expect.poll(() => got, { timeout: 3_000 }).toEqual(["slow"]);
      const status = async () => (await call(holder, "GET", `/devices/${d.id}/control_logs`)).body.items[0];
      // The sweep ran several times past the TTL meanwhile: still issued, then delivered once the PUBACK came.
      await quietFor(2_500, "the sweep runs several times past the TTL meanwhile");
      expect((await status()).publishStatus).toBe(1);
      await expect.poll(async () => (await status()).publishStatus, { timeout: 5_000 }).toBe(2);
    } finally {
      device.close();
    }
  });

  it("sends a retained command made on the other node at the device's next SUBSCRIBE, RETAIN=1", async () => {
    const d = await newDevice();
    const device = connect(a, d);
    try {
      await expect.poll(() => sessionRows(d), { timeout: 5_000 }).toEqual([a.nodeId]);
      // Made on B after the device authenticated on A: only B's RetainedUpdate, routed to A, brings it.
      const r = await call(b, "POST", "/device_publish", {
        deviceID: d.deviceID,
        topic: "cfg",
        payload: "v1",
        retain: 1,
      });
      expect(r.status).toBe(201);
      await quietFor(1_000, "a live change reaches the other node's adapters within one second");
      const retained = new Promise<string>((resolve) =>
        device.client.on("message", (topic, payload, packet) => {
          if (packet.retain) resolve(`${topic} ${payload.toString()}`);
        }),
      );
      await device.client.subscribeAsync("cfg", { qos: 1 });
      expect(await retained).toBe("cfg v1");
    } finally {
      await device.client.endAsync();
    }
  });

  it("resumes a persistent session on the other node: session present, and the command queued meanwhile without SUBSCRIBE", async () => {
    const d = await newDevice();
    const persistent = (side: Side) =>
      mqtt.connectAsync(side.mqttUrl, {
        protocolVersion: 4,
        clean: false,
        reconnectPeriod: 0,
        clientId: d.deviceID,
        username: d.deviceUsername,
        password: d.token,
      });
    const first = await persistent(a);
    await first.subscribeAsync("inbox", { qos: 1 });
    // The adapter reports the session's subscriptions after the SUBACK: stored before the device moves on.
    const stored = async () =>
      (await store.db.selectFrom("mqttSessions").select("subscriptions").where("deviceIntId", "=", d.id).execute()).map(
        (r) => r.subscriptions,
      );
    await expect.poll(stored, { timeout: 5_000 }).toEqual([expect.stringContaining('"inbox"')]);
    await first.endAsync();
    await expect.poll(() => sessionRows(d), { timeout: 5_000 }).toEqual([]);
    const r = await call(b, "POST", "/device_publish", { deviceID: d.deviceID, payload: "while-away", qos: 1 });
    expect(r.status).toBe(201);
    const connacks: boolean[] = [];
    const received: string[] = [];
    const second = mqtt.connect(b.mqttUrl, {
      protocolVersion: 4,
      clean: false,
      reconnectPeriod: 0,
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
    });
    second.on("connect", (connack) => connacks.push(connack.sessionPresent));
    second.on("message", (topic, payload) => received.push(`${topic} ${payload.toString()}`));
    try {
      await expect.poll(() => received, { timeout: 8_000 }).toEqual(["inbox while-away"]);
      expect(connacks).toEqual([true]);
      await expect.poll(() => sessionRows(d), { timeout: 5_000 }).toEqual([b.nodeId]);
    } finally {
      await second.endAsync();
    }
  });
});
