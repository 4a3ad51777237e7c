/**
 * Scale-out over PostgreSQL: MQTT QoS 1 ingest (PUBACK after the durable write) and command round trips (REST
 * `device_publish` until the device received it), first with one central node, then with two nodes on one database,
 * in the same run on the same machine; each case on a fresh database.
 *
 *   pnpm bench:cluster [devices=10] [messages per device=300] [commands=200]
 *
 * One node: one MQTT adapter. Two nodes: one MQTT adapter per node (each given both addresses, its own first), the
 * devices split between them, so both nodes ingest. Commands go through the node whose adapter holds the device;
 * a command issued on the other node (cross-node routing) is tried too and reported separately.
 *
 * CPU: over the ingest window (the publishes, not setup or commands), the CPU seconds per 10,000 uplinks of each
 * MQTT adapter and each central node (their /proc/<pid>/stat), and of PostgreSQL (cluster-cpu.ts): the backends
 * pg_stat_activity lists for the run's database (each case has its own) plus a share of the processes that work for
 * every database (WAL writer, checkpointer, background writer, autovacuum launcher, postmaster), that share being the
 * run's backends' part of all backends' CPU over the window; the whole server's CPU over the window (other databases'
 * work included: on a shared machine, other users') is printed beside it. PostgreSQL must run on this machine.
 * From the two-node case's figures, cluster-model.ts projects the ceiling of N nodes (each a machine of
 * BENCH_NODE_CORES cores, default 2, running a central node and its adapter) against a database of C cores.
 *
 * BENCH_PIN=1 splits the cores (taskset, util-linux): just before the window, every thread of the central nodes,
 * the adapters and this process goes on the first half of the cores (core 0 on two), and the run's PostgreSQL
 * backends and the shared server processes on the rest (core 1), so a node's figure is its own work and not
 * contention with the database; each pinned process's mask is put back after the window. Backends opened during the
 * window are not pinned (the postmaster is not, so that other databases' new connections are left alone).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MqttClient } from "mqtt";
import { createTestDatabase, postgresEngine } from "@iot/registry/test-engines";
import {
  ADAPTERS,
  reachable,
  startFleet,
  startProcess,
  stopProcess,
  type FleetProcess,
  clusterMqttEnv,
} from "../scripts/fleet.js";
import { connect, measure, WINDOW } from "./mqtt-load.js";
import { cpuSeconds, machineBusySeconds, percentile, positiveInt } from "./figures.js";
import { printResult } from "./result.js";
import { PgServer, Pinning, processCpu, readProcesses, serverCpu, splitCores } from "./cluster-cpu.js";
import { printCapacity, type CaseCpu } from "./cluster-report.js";

const devices = positiveInt(process.argv[2], 10);
const perDevice = positiveInt(process.argv[3], 300);
const commands = positiveInt(process.argv[4], 200);
const PASSWORD = "bench-cluster-pass";
/** Longest wait for one command to reach its device, ms. */
const COMMAND_TIMEOUT_MS = 3_000;

/** BENCH_PIN=1: the fleet and PostgreSQL on cores of their own over the ingest window. */
const cores = process.env.BENCH_PIN === "1" ? splitCores() : undefined;
if (process.env.BENCH_PIN === "1" && !cores) console.log("BENCH_PIN=1 ignored: one core, nothing to split");
/** The cores of the model's node machine (a central node and its MQTT adapter): BENCH_NODE_CORES, default 2. */
const NODE_CORES = positiveInt(process.env.BENCH_NODE_CORES, 2);
/** The server, read through the test engines' URL (its own connection is in another database than the run's). */
const server = await PgServer.open(postgresEngine!.url!);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The members of REST answers this benchmark reads (each present where it reads it). */
interface Answer {
  token: string;
  productID: string;
  deviceID: string;
  deviceUsername: string;
  adapters: unknown[];
}

type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Answer }>;

/** A logged-in REST client of one central node. */
async function apiOf(central: FleetProcess): Promise<Api> {
  const base = `${reachable(central.urls.api!)}/api/v1`;
  let token = "";
  const call: Api = async (method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Answer };
  };
  token = (await call("POST", "/login", { username: "admin", password: PASSWORD })).body.token;
  return call;
}

/** Milliseconds from each `device_publish` call to the device receiving it, one command at a time. */
async function roundTrips(api: Api, deviceID: string, client: MqttClient, n: number): Promise<number[] | string> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const payload = `cmd-${i}-${Math.random()}`;
    let arrived!: () => void;
    const got = new Promise<void>((resolve) => (arrived = resolve));
    const onMessage = (_topic: string, body: Buffer) => body.toString() === payload && arrived();
    client.on("message", onMessage);
    const started = performance.now();
    const r = await api("POST", "/device_publish", { deviceID, payload });
    const timer = sleep(COMMAND_TIMEOUT_MS).then(() => "timeout" as const);
    const outcome = r.status === 201 ? await Promise.race([got.then(() => "ok" as const), timer]) : "refused";
    client.off("message", onMessage);
    if (outcome !== "ok")
      return outcome === "timeout" ? `not delivered within ${COMMAND_TIMEOUT_MS} ms` : `${r.status}`;
    out.push(performance.now() - started);
  }
  return out;
}

interface CaseResult {
  ingest: number;
  cpu: CaseCpu;
  commands: number[];
  crossNode?: number[] | string;
}

/** Starts `nodes` central nodes and one MQTT adapter per node on a fresh database, and measures. */
async function runCase(nodes: 1 | 2): Promise<CaseResult> {
  const db = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), "bench-cluster-"));
  const env = clusterMqttEnv(db.url, dataDir, PASSWORD, "error");
  const fleet = await startFleet(env, { nodes, adapters: ["mqtt-adapter"] });
  const adapters = [fleet.adapters[0]!];
  const clients: MqttClient[] = [];
  const pinning = new Pinning();
  const database = new URL(db.url).pathname.slice(1);
  try {
    if (nodes === 2) {
      // The second node's own adapter: its address first, the first node's as the fallback.
      const [a, b] = fleet.centrals.map((c) => reachable(c.urls.grpc!));
      const entry = ADAPTERS.find((x) => x.name === "mqtt-adapter")!.entry;
      adapters.push(
        await startProcess("mqtt-adapter-2", entry, {
          ...env,
          IOT_REGISTRY_TOKEN: fleet.registryToken,
          IOT_REGISTRY_URL: `${b},${a}`,
        }),
      );
    }
    const apis = await Promise.all(fleet.centrals.map(apiOf));
    for (const api of apis) while ((await api("GET", "/health")).body.adapters.length < 1) await sleep(100);
    const productID = (await apis[0]!("POST", "/products", { productName: "bench", cloudProtocol: 1 })).body.productID;
    const made: { deviceID: string; node: number; client: MqttClient }[] = [];
    for (let i = 0; i < devices; i++) {
      const node = i % nodes;
      const d = (
        await apis[node]!("POST", "/devices", {
          productID,
          deviceName: `bench-${i}`,
          deviceType: 1,
          upLinkSystem: 1,
          authType: 1,
        })
      ).body;
      const client = await connect(reachable(adapters[node]!.urls.mqtt!), {
        clientId: d.deviceID,
        username: d.deviceUsername,
        password: d.token,
      });
      await client.subscribeAsync("inbox", { qos: 1 });
      clients.push(client);
      made.push({ deviceID: d.deviceID, node, client });
    }
    const fleetPids = [...fleet.centrals, ...adapters].map((p) => p.child.pid);
    if (cores) {
      pinning.pin([...fleetPids, process.pid], cores.fleet);
      pinning.pin(await server.pidsOf(database), cores.database);
    }
    const [adaptersBefore, centralsBefore] = [
      readProcesses(adapters.map((a) => a.child.pid)),
      readProcesses(fleet.centrals.map((c) => c.child.pid)),
    ];
    const serverBefore = await server.read();
    const watching = server.watch();
    const [clientsBefore, machineBefore, started] = [cpuSeconds(process.pid)!, machineBusySeconds(), performance.now()];
    const ingest = await measure(clients, perDevice);
    const [clientsAfter, machineAfter, ended] = [cpuSeconds(process.pid)!, machineBusySeconds(), performance.now()];
    const serverAfter = await watching.stop();
    const cpu: CaseCpu = {
      uplinks: devices * perDevice,
      seconds: (ended - started) / 1000,
      clients: clientsAfter - clientsBefore,
      machine: machineBefore !== undefined && machineAfter !== undefined ? machineAfter - machineBefore : undefined,
      adapters: processCpu(adaptersBefore, readProcesses(adapters.map((a) => a.child.pid))),
      centrals: processCpu(centralsBefore, readProcesses(fleet.centrals.map((c) => c.child.pid))),
      database: serverCpu(serverBefore, serverAfter, database),
    };
    pinning.restore();
    // Commands on the node holding the device (each node its share), then one node's REST for the other's device.
    const latencies: number[] = [];
    for (let node = 0; node < nodes; node++) {
      const d = made.find((m) => m.node === node)!;
      const r = await roundTrips(apis[node]!, d.deviceID, d.client, Math.ceil(commands / nodes));
      if (typeof r === "string") throw new Error(`commands on node ${node + 1}: ${r}`);
      latencies.push(...r);
    }
    if (nodes === 1) return { ingest, cpu, commands: latencies };
    const remote = made.find((m) => m.node === 1)!;
    const crossNode = await roundTrips(apis[0]!, remote.deviceID, remote.client, Math.ceil(commands / nodes));
    return { ingest, cpu, commands: latencies, crossNode };
  } finally {
    pinning.restore();
    await Promise.all(clients.map((c) => c.endAsync()));
    if (adapters[1]) await stopProcess(adapters[1]);
    await fleet.stop();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const one = await runCase(1);
const two = await runCase(2);
const statStatements = await server.hasStatStatements();
await server.close();
const ms = (x: number) => x.toFixed(1).padStart(8);
const rate = (x: number) => Math.round(x).toLocaleString("en-US").padStart(9);
const row = (label: string, r: CaseResult) =>
  `${label.padEnd(34)}${rate(r.ingest)} msg/s   commands p50 ${ms(percentile(r.commands, 50))} ms   p99 ${ms(percentile(r.commands, 99))} ms`;
console.log(
  `${devices} devices x ${perDevice} QoS 1 publishes (${WINDOW} in flight per device), ${commands} commands one at a time; PostgreSQL`,
);
console.log(row("one central node (baseline)", one));
console.log(row("two central nodes, one database", two));
console.log(
  `ratio two/one: ingest ${(two.ingest / one.ingest).toFixed(2)}, command p50 ${(percentile(two.commands, 50) / percentile(one.commands, 50)).toFixed(2)}, p99 ${(percentile(two.commands, 99) / percentile(one.commands, 99)).toFixed(2)}`,
);
const cross = two.crossNode!;
console.log(
  typeof cross === "string"
    ? `cross-node commands (REST on node 1, device on node 2's adapter): ${cross} (without cross-node routing a command waits for its device on the node it was issued on)`
    : `cross-node commands (REST on node 1, device on node 2's adapter): p50 ${ms(percentile(cross, 50))} ms   p99 ${ms(percentile(cross, 99))} ms`,
);
printResult({
  measure: "MQTT QoS 1 ingest, two central nodes on one PostgreSQL",
  figure: `${Math.round(two.ingest)} msg/s`,
  baseline: `one node ${Math.round(one.ingest)} msg/s`,
  ratio: two.ingest / one.ingest,
  goal: "",
  met: null,
});
printResult({
  measure: "command round trip p99, two central nodes",
  figure: `${percentile(two.commands, 99).toFixed(1)} ms`,
  baseline: `one node ${percentile(one.commands, 99).toFixed(1)} ms`,
  ratio: percentile(two.commands, 99) / percentile(one.commands, 99),
  goal: "",
  met: null,
});
if (typeof cross !== "string")
  printResult({
    measure: "cross-node command round trip p99 (REST on node 1, device on node 2)",
    figure: `${percentile(cross, 99).toFixed(1)} ms`,
    baseline: `same node ${percentile(two.commands, 99).toFixed(1)} ms`,
    ratio: percentile(cross, 99) / percentile(two.commands, 99),
    goal: "",
    met: null,
  });

printCapacity(one, two, {
  pinned: cores,
  statStatements,
  nodeCores: NODE_CORES,
  measured: `measured: one node ${Math.round(one.ingest)}, two ${Math.round(two.ingest)} msg/s`,
});
