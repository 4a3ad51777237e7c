import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mqtt, { type MqttClient } from "mqtt";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMessageLayer, listenUdp, type MessageLayer, type UdpListener } from "@iot/adapter-coap";
import { createAdapterLogger } from "@iot/adapter-core";
import { reachable, startProcess, stopProcess, type FleetProcess } from "../scripts/fleet.js";
import { createTestDatabase, postgresEngine, type TestDatabase } from "../packages/registry/src/store/test-engines.js";
import { callApi, CLUSTER_PASSWORD, loginOn } from "./cluster-load.js";

/**
 * Three central nodes as real processes on one PostgreSQL database (a fresh one per run), with the MQTT adapter
 * attached to node A, the CoAP adapter to node B and the HTTP adapter to node C: commands, kicks and policy pushes
 * made on one node reach devices whose adapter is on another, a schedule fires once, failed logins count across
 * nodes, and a node killed with SIGKILL shows as gone in every node's health within 10 s while its singleton jobs
 * move to a live node. Skipped (visibly) when no PostgreSQL server answers and CI is not set.
 */
const run = randomBytes(4).toString("hex");
const dirs: string[] = [];
const centrals: FleetProcess[] = [];
const adapters: FleetProcess[] = [];

interface Node {
  id: string;
  process: FleetProcess;
  grpc: string;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/** A REST client of one node, logged in as the administrator. */
async function client(apiUrl: string): Promise<Node["api"]> {
  const token = await loginOn(apiUrl, "admin", CLUSTER_PASSWORD);
  return (method, path, body) => callApi(apiUrl, token, method, path, body);
}

async function startNode(id: string, databaseUrl: string): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), "cluster-"));
  dirs.push(dataDir);
  const p = await startProcess(`central-${id}`, "packages/central/src/main.ts", {
    IOT_DATA_DIR: dataDir,
    IOT_DATABASE_URL: databaseUrl,
    IOT_NODE_ID: `${id}-${run}`,
    IOT_API_HOST: "127.0.0.1",
    IOT_API_PORT: "0",
    IOT_GRPC_PORT: "0",
    IOT_ADMIN_USERNAME: "admin",
    IOT_ADMIN_PASSWORD: CLUSTER_PASSWORD,
    IOT_LOGIN_MAX_FAILURES: "3",
    IOT_SESSION_GRACE: "5",
    IOT_LOG_LEVEL: "warn",
  });
  centrals.push(p);
  return { id: `${id}-${run}`, process: p, grpc: p.urls.grpc!, api: await client(reachable(p.urls.api!)) };
}

async function startAdapter(name: string, entry: string, node: Node, env: Record<string, string>) {
  const p = await startProcess(name, entry, {
    IOT_REGISTRY_URL: node.grpc,
    IOT_LOG_LEVEL: "warn",
    ...env,
  });
  adapters.push(p);
  return p;
}

let db: TestDatabase | undefined;
let a: Node;
let b: Node;
let c: Node;
let mqttUrl = "";
let httpUrl = "";
let coapPort = 0;
let mqttProduct = "";
let n = 0;

const describeOnPostgres = postgresEngine ? describe : describe.skip;
if (!postgresEngine) console.warn("cluster tests SKIPPED: no PostgreSQL server answers (set CI=true to require one)");

beforeAll(async () => {
  if (!postgresEngine) return;
  db = await createTestDatabase();
  const url = db.url;
  // Started one after another: the first creates the administrator, the others find it.
  a = await startNode("a", url);
  b = await startNode("b", url);
  c = await startNode("c", url);
  const mqttAdapter = await startAdapter("mqtt-adapter", "packages/adapters/mqtt/src/main.ts", a, {
    IOT_MQTT_PORT: "0",
    IOT_MQTTS_PORT: "-1",
    IOT_MQTTSS_PORT: "-1",
    IOT_MQTT_WS_PORT: "-1",
  });
  mqttUrl = reachable(mqttAdapter.urls.mqtt!);
  const coapAdapter = await startAdapter("coap-adapter", "packages/adapters/coap/src/main.ts", b, {
    IOT_COAP_PORT: "0",
    IOT_COAPS_PORT: "-1",
    IOT_COAPSS_PORT: "-1",
  });
  coapPort = Number(new URL(reachable(coapAdapter.urls.coap!)).port);
  const httpAdapter = await startAdapter("http-adapter", "packages/adapters/http/src/main.ts", c, {
    IOT_HTTP_DEVICE_PORT: "0",
  });
  httpUrl = reachable(httpAdapter.urls.http!);
  mqttProduct = (await a.api("POST", "/products", { productName: "mqtt", cloudProtocol: 1 })).body.productID;
}, 180_000);

// The adapters, then the central nodes, each group stopped at once (a process is killed 5 s after SIGTERM): one
// after another, the six processes and the database's drop once took more than the 60 s of a loaded CI machine.
afterAll(async () => {
  const started = Date.now();
  await Promise.all(adapters.map((p) => stopProcess(p).catch(() => undefined)));
  await Promise.all(centrals.map((p) => stopProcess(p).catch(() => undefined)));
  const stopped = Date.now();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await db?.drop();
  if (Date.now() - started > 15_000)
    console.warn(`cluster teardown slow: processes ${stopped - started} ms, database drop ${Date.now() - stopped} ms`);
}, 120_000);

type Device = { id: number; deviceID: string; deviceUsername: string; token: string };

async function newDevice(productID: string): Promise<Device> {
  const r = await a.api("POST", "/devices", {
    productID,
    deviceName: `d-${n++}`,
    deviceType: 1,
    upLinkSystem: 1,
    authType: 1,
  });
  expect(r.status).toBe(201);
  return r.body;
}

/** Connects over MQTT (to the adapter on node A) and collects what arrives on `inbox`. */
async function mqttDevice(d: Device): Promise<{ client: MqttClient; received: string[] }> {
  const client = await mqtt.connectAsync(mqttUrl, {
    protocolVersion: 4,
    reconnectPeriod: 0,
    connectTimeout: 5000,
    clientId: d.deviceID,
    username: d.deviceUsername,
    password: d.token,
  });
  const received: string[] = [];
  client.on("message", (_topic, payload) => received.push(payload.toString()));
  await client.subscribeAsync("inbox", { qos: 1 });
  // Online as every node sees it (the session row and state are written together).
  await expect.poll(async () => (await c.api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
  return { client, received };
}

const lastLog = async (node: Node, d: Device) =>
  (await node.api("GET", `/devices/${d.id}/control_logs`)).body.items[0]?.publishStatus;
const withinOneSecond = () => quietFor(1000, "a live change reaches every node's adapters within one second");

describeOnPostgres("three central nodes on one PostgreSQL database", () => {
  it("lists every node in each node's health, with the adapters each holds", async () => {
    const view = async (node: Node) =>
      ((await node.api("GET", "/health")).body.nodes as Array<{ nodeId: string; state: string; adapters: any[] }>)
        .filter((x) => x.state === "up")
        .map((x) => [x.nodeId, x.adapters.map((ad: { protocolLabel: string }) => ad.protocolLabel)])
        .sort();
    const expected = [
      [a.id, ["MQTT"]],
      [b.id, ["CoAP"]],
      [c.id, ["HTTP"]],
    ];
    for (const node of [a, b, c]) await expect.poll(() => view(node), { timeout: 10_000 }).toEqual(expected);
    const health = (await b.api("GET", "/health")).body;
    expect(health).toMatchObject({ status: "ok", nodeId: b.id, database: "postgres", databaseHealth: { ok: true } });
  });

  it("delivers a device_publish made on node C to an MQTT device (mosquitto_sub) on node A's adapter; its log follows", async () => {
    const d = await newDevice(mqttProduct);
    // Line-buffered (stdbuf execs it): its debug lines reach the pipe as they are printed.
    const sub = spawn("stdbuf", [
      "-oL",
      "mosquitto_sub",
      ...["-h", new URL(mqttUrl).hostname, "-p", new URL(mqttUrl).port, "-V", "311"],
      ...["-i", d.deviceID, "-u", d.deviceUsername, "-P", d.token, "-t", "inbox", "-q", "1", "-C", "1", "-d"],
    ]);
    let out = "";
    sub.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    try {
      await expect.poll(async () => (await c.api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
      // mosquitto_sub subscribes right after its CONNACK: its debug output (-d) tells when the SUBACK came.
      await expect.poll(() => out, { timeout: 5_000 }).toContain("received SUBACK");
      const r = await c.api("POST", "/device_publish", { deviceID: d.deviceID, payload: "from-node-c" });
      expect([r.status, r.body.publishStatus]).toEqual([201, "1"]);
      await expect.poll(() => out.split("\n"), { timeout: 5_000 }).toContain("from-node-c");
      await expect.poll(() => lastLog(b, d), { timeout: 5_000 }).toBe(2);
    } finally {
      sub.kill();
    }
  });

  it("delivers a device_publish made on node A to an HTTP device long-polling node C's adapter", async () => {
    const product = (await a.api("POST", "/products", { productName: "http", cloudProtocol: 5 })).body.productID;
    const d = await newDevice(product);
    const basic = `Basic ${Buffer.from(`${d.deviceUsername}:${d.token}`).toString("base64")}`;
    const waiting = fetch(`${httpUrl}/topics/inbox?wait=20`, { headers: { authorization: basic } });
    await expect.poll(async () => (await a.api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
    const r = await a.api("POST", "/device_publish", { deviceID: d.deviceID, payload: "from-node-a" });
    expect(r.body.publishStatus).toBe("1");
    const res = await waiting;
    expect([res.status, await res.text()]).toEqual([200, "from-node-a"]);
    await expect.poll(() => lastLog(b, d), { timeout: 5_000 }).toBe(2);
  });

  it("notifies a CoAP device observing node B's adapter of a device_publish made on node C", async () => {
    const product = (await a.api("POST", "/products", { productName: "coap", cloudProtocol: 2 })).body.productID;
    const d = await newDevice(product);
    let udp: UdpListener | undefined;
    const layer: MessageLayer = createMessageLayer(async () => ({ code: "4.04" }), {
      logger: createAdapterLogger("cluster-test", "silent"),
      maxBodyBytes: 65_536,
      send: (data, peer) => udp!.send(data, peer),
    });
    udp = await listenUdp(layer, { port: 0, host: "127.0.0.1", onError: () => {} });
    try {
      const notified: string[] = [];
      const query = [`c=${d.deviceID}`, `u=${d.deviceUsername}`, `p=${d.token}`];
      const observation = await layer.observe(
        { address: "127.0.0.1", port: coapPort },
        { method: "GET", path: "/mqtt/inbox", query },
        (m) => void notified.push(m.payload.toString()),
      );
      expect(observation.active).toBe(true);
      await expect.poll(async () => (await c.api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
      const r = await c.api("POST", "/device_publish", { deviceID: d.deviceID, payload: "from-node-c" });
      expect(r.body.publishStatus).toBe("1");
      await expect.poll(() => notified, { timeout: 5_000 }).toContain("from-node-c");
    } finally {
      layer.close();
      await udp.close();
    }
  });

  it("sends a group_publish made on node B to every member on node A's adapter, and the task succeeds", async () => {
    const members = [await newDevice(mqttProduct), await newDevice(mqttProduct)];
    const group = (await b.api("POST", "/groups", { productID: mqttProduct, groupName: `g-${run}` })).body;
    expect((await b.api("POST", `/groups/${group.id}/devices`, { ids: members.map((m) => m.id) })).status).toBe(201);
    const devices = await Promise.all(members.map(mqttDevice));
    try {
      const r = await b.api("POST", "/group_publish", { groupID: group.groupID, payload: "to-the-group", needAck: 1 });
      expect(r.status).toBe(201);
      for (const dev of devices) await expect.poll(() => dev.received, { timeout: 5_000 }).toEqual(["to-the-group"]);
      const statusPath = new URL(r.body.statusUrl, "http://x").pathname.replace(/^\/api\/v1/, "");
      await expect.poll(async () => (await c.api("GET", statusPath)).body.status, { timeout: 5_000 }).toBe(3);
    } finally {
      for (const dev of devices) await dev.client.endAsync();
    }
  });

  it("closes an MQTT session on node A's adapter within one second when node C blocks the device", async () => {
    const d = await newDevice(mqttProduct);
    const dev = await mqttDevice(d);
    const closed = new Promise<void>((resolve) => dev.client.once("close", () => resolve()));
    expect((await c.api("PUT", `/devices/${d.id}`, { blocked: 1 })).status).toBe(200);
    const started = Date.now();
    await Promise.race([closed, withinOneSecond()]);
    expect(dev.client.connected).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
    dev.client.end(true);
  });

  it("applies a deny policy bound on node B to a live MQTT session on node A's adapter within one second", async () => {
    const d = await newDevice(mqttProduct);
    const dev = await mqttDevice(d);
    try {
      const p = (await b.api("POST", "/policies", { name: `deny-${run}`, topic: "secret/#", access: 3, allow: 0 }))
        .body;
      expect((await b.api("POST", `/devices/${d.id}/policies`, { ids: [p.id] })).status).toBe(201);
      await withinOneSecond();
      const refusal = await dev.client.subscribeAsync("secret/#", { qos: 1 }).then(
        () => undefined,
        (err: { packet?: { granted: number[] } }) => err,
      );
      expect(refusal?.packet?.granted).toEqual([128]);
      await dev.client.publishAsync("secret/x", "denied", { qos: 1 });
      await dev.client.publishAsync("open/x", "allowed", { qos: 1 });
      const topics = async () =>
        (await c.api("GET", `/devices/${d.id}/events`)).body.items.map((e: { topic: string }) => e.topic);
      await expect.poll(topics, { timeout: 5_000 }).toEqual(["open/x"]);
      expect(dev.client.connected).toBe(true);
    } finally {
      await dev.client.endAsync();
    }
  });

  it("subscribes a live MQTT device on node A's adapter to a proxy subscription added on node C", async () => {
    const d = await newDevice(mqttProduct);
    const client = await mqtt.connectAsync(mqttUrl, {
      protocolVersion: 4,
      reconnectPeriod: 0,
      connectTimeout: 5000,
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
    });
    try {
      const got: string[] = [];
      client.on("message", (topic, payload) => got.push(`${topic} ${payload.toString()}`));
      await expect.poll(async () => (await c.api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
      expect((await c.api("POST", `/devices/${d.id}/subscriptions`, { topic: "ota/+", qos: 1 })).status).toBe(201);
      await withinOneSecond();
      await b.api("POST", "/device_publish", { deviceID: d.deviceID, topic: "ota/fw", payload: "v2" });
      await expect.poll(() => got, { timeout: 5_000 }).toEqual(["ota/fw v2"]);
    } finally {
      await client.endAsync();
    }
  });

  it("fires a schedule made on node C once, not once per node", async () => {
    const d = await newDevice(mqttProduct);
    const dev = await mqttDevice(d);
    try {
      const at = new Date(Date.now() + 3_000).toISOString().slice(0, 19).replace("T", " ");
      const r = await c.api("POST", "/device_schedule_publish", {
        deviceID: d.deviceID,
        payload: "scheduled",
        scheduleName: `once-${run}`,
        scheduleType: 0,
        crontabTime: at,
      });
      expect(r.status).toBe(201);
      await expect.poll(() => dev.received, { timeout: 10_000 }).toEqual(["scheduled"]);
      // Three more scheduler ticks on every node: still one run.
      await quietFor(3_000, "three more scheduler ticks on every node");
      expect(dev.received).toEqual(["scheduled"]);
      expect((await a.api("GET", `/devices/${d.id}/control_logs`)).body.items).toHaveLength(1);
    } finally {
      await dev.client.endAsync();
    }
  });

  it("counts failed logins across nodes", async () => {
    const username = `guesser-${run}`;
    const attempt = async (node: Node) =>
      (
        await fetch(`${reachable(node.process.urls.api!)}/api/v1/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ username, password: "wrong-password" }),
        })
      ).status;
    // IOT_LOGIN_MAX_FAILURES=3: one failure on each node, then every node refuses.
    expect([await attempt(a), await attempt(b), await attempt(c)]).toEqual([401, 401, 401]);
    expect([await attempt(a), await attempt(b), await attempt(c)]).toEqual([429, 429, 429]);
  });

  it("shows a node killed with SIGKILL as gone in the others' health within 10 s, and its jobs move", async () => {
    const jobsOf = async (node: Node) => (await node.api("GET", "/health")).body.jobs as string[];
    const held = [...(await jobsOf(a)), ...(await jobsOf(b)), ...(await jobsOf(c))].sort();
    expect(held).toEqual(expect.arrayContaining(["schedules", "command-expiry", "retention", "data-pipeline"]));
    // Kill the node running the schedules.
    const victim = (await jobsOf(a)).includes("schedules") ? a : (await jobsOf(b)).includes("schedules") ? b : c;
    const survivors = [a, b, c].filter((x) => x !== victim);
    const killed = Date.now();
    victim.process.child.kill("SIGKILL");
    const stateOf = async (node: Node) =>
      ((await node.api("GET", "/health")).body.nodes as Array<{ nodeId: string; state: string }>).find(
        (x) => x.nodeId === victim.id,
      )?.state;
    for (const node of survivors) await expect.poll(() => stateOf(node), { timeout: 10_000 }).toBe("gone");
    expect(Date.now() - killed).toBeLessThan(10_000);
    const moved = async () => [...(await jobsOf(survivors[0]!)), ...(await jobsOf(survivors[1]!))].sort();
    await expect.poll(moved, { timeout: 15_000 }).toEqual(held);
  });
});
