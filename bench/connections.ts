/**
 * MQTT connections at fleet size: a paced connect storm of authenticated devices against the running fleet (each
 * CONNECT authenticated by the registry, marked online and logged), its CONNACK latency, and the memory the held
 * connections cost (RSS growth of the MQTT adapter processes plus the central node, per connection, less the growth
 * of V8's young generation: a reserve of at most two semi-spaces a process, sized by V8 from the machine's memory and
 * grown under any allocation burst, whatever the number of connections); beside the same storm against a plain
 * broker (the machine's Mosquitto, else bare aedes in process) in the same run.
 *
 *   pnpm bench:connections [devices=20000] [connects per second=2000] [baseline=mqtt://127.0.0.1:1883]
 *
 * One process may hold only as many sockets as its open-files limit (`ulimit -n`, 20,000 on the reference machine,
 * and it cannot be raised there), so the load comes from several generator processes and, when the devices exceed
 * what one adapter may hold, several MQTT adapter instances share them, as a deployment would run them.
 *
 * With BENCH_CPU_PROF_DIR set the fleet's processes write CPU profiles there; BENCH_NODE_ARGS (space-separated) adds
 * Node options to them, to try a V8 setting (`--max-semi-space-size=32`) without a code change.
 */
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { Aedes } from "aedes";
import { startProcess, stopProcess, reachable, type FleetProcess } from "../scripts/fleet.js";
import { startTestFleet } from "../test/helpers.js";
import { rawConnect, type RawCredentials } from "../test/raw-mqtt.js";
import type { LoadOrder, LoadReport } from "./connections-load.js";
import { printResult } from "./result.js";
import { cpuSeconds, cpuTimes, monotonicUs, percentile, positiveInt } from "./figures.js";

const devices = positiveInt(process.argv[2], 20_000);
const rate = positiveInt(process.argv[3], 2_000);
const baselineUrl = new URL(process.argv[4] ?? "mqtt://127.0.0.1:1883");
/** Sockets one process may hold, leaving room for its other files. */
const PER_PROCESS = 9_000;
/** Rest before each memory reading, ms. */
const SETTLE_MS = 8_000;

/** Resident memory of a process in bytes, from /proc (Linux). */
function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for process ${pid}`);
  return Number(m[1]) * 1024;
}

/**
 * The bytes V8's young generation has committed in a process now (prom-client's
 * `nodejs_heap_space_size_total_bytes{space="new"}` from its metrics URL).
 */
async function youngGeneration(metricsUrl: string): Promise<number> {
  const body = await (await fetch(metricsUrl)).text();
  const m = /^nodejs_heap_space_size_total_bytes\{space="new"\} (\S+)$/m.exec(body);
  if (!m) throw new Error(`no young generation size at ${metricsUrl}`);
  return Number(m[1]);
}

/** CPU time a process has used so far (user + system), ms, from /proc (Linux; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  return (cpuSeconds(pid) ?? NaN) * 1000;
}

/** The kernel's part of `cpuMs`: the sockets' system calls, TCP and the loopback delivery they do. */
function systemCpuMs(pid: number): number {
  return (cpuTimes(pid)?.system ?? NaN) * 1000;
}

/** Times the kernel found an accept queue full and dropped a SYN (the client retries after 1 s, 3 s…), machine-wide. */
function listenOverflows(): number {
  const [names, values] = readFileSync("/proc/net/netstat", "utf8")
    .split("\n")
    .filter((l) => l.startsWith("TcpExt:"))
    .map((l) => l.split(/\s+/));
  return Number(values?.[names?.indexOf("ListenOverflows") ?? -1] ?? NaN);
}

/** CPU time of the whole machine so far (every process and the kernel), and the time it had, in clock ticks. */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  // idle and iowait are the time nobody wanted.
  return { busy: total - fields[3]! - fields[4]!, total };
}

/** A paced storm from several generator processes; resolves when every device has its answer, sockets held. */
async function storm(ports: number[], credentials: RawCredentials[]) {
  const shares = Math.ceil(credentials.length / PER_PROCESS);
  const generators: ChildProcess[] = [];
  const reports: Promise<LoadReport>[] = [];
  const ready: Promise<void>[] = [];
  for (let g = 0; g < shares; g++) {
    const child = fork(new URL("./connections-load.ts", import.meta.url).pathname, [], {
      execArgv: ["--import", "tsx"],
    });
    generators.push(child);
    ready.push(new Promise((resolve) => child.on("message", (m: { ready?: true }) => m.ready && resolve())));
    reports.push(
      new Promise((resolve) => child.on("message", (m: { report?: LoadReport }) => m.report && resolve(m.report))),
    );
  }
  // Every generator loaded first: one starting up (a few hundred ms of CPU) while the others already send would be
  // the storm's own load on the machine, not the broker's.
  await Promise.all(ready);
  generators.forEach((child, g) => {
    const mine = credentials.filter((_, i) => i % shares === g);
    child.send({ order: { ports, credentials: mine, rate: rate / shares } satisfies LoadOrder });
  });
  const overflowsBefore = listenOverflows();
  const machineBefore = machineTicks();
  const startedUs = monotonicUs();
  const done = await Promise.all(reports);
  const machineAfter = machineTicks();
  // Whether the machine had CPU to spare during the storm: near 100 % busy, a queue behind CPU is the explanation.
  const machineBusy = (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total);
  const generatorCpuMs = done.reduce((sum, r) => sum + r.cpuMs, 0);
  const window = `--from=${startedUs} --to=${monotonicUs()}`;
  const overflows = listenOverflows() - overflowsBefore;
  const latencies = done.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  // By the second of the storm each CONNECT went out in: a queue that builds up shows as a rising p99, a pause of
  // one process (a GC, a long batch) as one bad second.
  const bySecond: number[][] = [];
  for (const r of done) r.sentMs.forEach((s, i) => (bySecond[Math.floor(s / 1000)] ??= []).push(r.latenciesMs[i]!));
  const timeline = Array.from(bySecond, (l = []) => `${percentile(l, 50).toFixed(0)}/${percentile(l, 99).toFixed(0)}`);
  const codes: Record<string, number> = {};
  for (const r of done) for (const [c, n] of Object.entries(r.codes)) codes[c] = (codes[c] ?? 0) + n;
  const seconds = Math.max(...done.map((r) => r.seconds));
  return {
    codes,
    window,
    timeline,
    machineBusy,
    generatorCpuMs,
    overflows,
    rate: credentials.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    async close() {
      await Promise.all(
        generators.map(async (c) => {
          const exited = once(c, "exit");
          c.send({ close: true });
          await exited;
        }),
      );
    },
  };
}

/** The baseline broker: the given address when it answers CONNACK 0, else bare aedes in this process. */
async function baselineBroker(): Promise<{ port: number; label: string; pid: number; close: () => Promise<void> }> {
  const port = Number(baselineUrl.port || 1883);
  const probe = await rawConnect(port, { clientId: "bench-probe" });
  probe.socket.destroy();
  if (probe.code === 0) {
    const pid = Number(readFileSync("/run/mosquitto/mosquitto.pid", "utf8").trim());
    return { port, label: `broker at ${baselineUrl.href}`, pid, close: async () => {} };
  }
  const broker = await Aedes.createBroker();
  const server: Server = createServer(broker.handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    label: "bare aedes (in process)",
    pid: process.pid,
    close: () => new Promise<void>((resolve) => server.close(() => broker.close(() => resolve()))),
  };
}

const profileDir = process.env.BENCH_CPU_PROF_DIR;
const nodeArgs = [
  ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
  ...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
];
const t = await startTestFleet({ IOT_LOG_LEVEL: "error", IOT_MQTT_METRICS_PORT: "0" }, { nodeArgs });
const extraAdapters: FleetProcess[] = [];
try {
  const firstAdapter = t.fleet.adapters.find((a) => a.name === "mqtt-adapter")!;
  const adapterCount = Math.ceil(devices / (PER_PROCESS * 2));
  for (let i = 1; i < adapterCount; i++)
    extraAdapters.push(
      await startProcess(
        `mqtt-adapter-${i + 1}`,
        "packages/adapters/mqtt/src/main.ts",
        {
          IOT_REGISTRY_URL: reachable(t.fleet.central.urls.grpc!),
          IOT_REGISTRY_TOKEN: t.fleet.registryToken,
          IOT_MQTT_PORT: "0",
          IOT_MQTTS_PORT: "0",
          IOT_MQTTSS_PORT: "0",
          IOT_MQTT_WS_PORT: "0",
          IOT_MQTT_METRICS_PORT: "0",
          IOT_LOG_LEVEL: "error",
        },
        { nodeArgs },
      ),
    );
  const adapters = [firstAdapter, ...extraAdapters];
  const ports = adapters.map((a) => Number(new URL(reachable(a.urls.mqtt!)).port));

  const productID = (await t.api("POST", "/products", { productName: "connections", cloudProtocol: 1 })).body.productID;
  const credentials: RawCredentials[] = [];
  const names = Array.from({ length: devices }, (_, i) => `conn-${i}`);
  const creating = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      for (let name = names.pop(); name; name = names.pop()) {
        const d = await t.newDevice(productID, name);
        credentials.push({ clientId: d.deviceID, username: d.deviceUsername, password: d.token });
      }
    }),
  );
  console.log(`created ${devices} devices in ${((performance.now() - creating) / 1000).toFixed(1)} s`);
  // Memory is read at rest on both sides: the garbage of creating the devices (central) and of the storm itself is
  // not memory a held connection costs, and V8 gives it back only some seconds after the work stops.
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const pids = [t.fleet.central.child.pid!, ...adapters.map((a) => a.child.pid!)];
  const metricsUrls = [`${new URL(t.apiUrl).origin}/metrics`, ...adapters.map((a) => a.urls.metrics!)];
  const youngOf = () => Promise.all(metricsUrls.map(youngGeneration));
  const before = pids.map(rss);
  const youngBefore = await youngOf();
  const cpuBefore = pids.map(cpuMs);
  const systemBefore = pids.map(systemCpuMs);

  const fleet = await storm(ports, credentials);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const after = pids.map(rss);
  const youngAfter = await youngOf();
  // Taken after the rest too: the connect logs and online states of the storm are written by then.
  const cpu = pids.map((pid, i) => cpuMs(pid) - cpuBefore[i]!);
  const system = pids.map((pid, i) => systemCpuMs(pid) - systemBefore[i]!);
  await fleet.close();
  const youngGrowth = youngAfter.map((y, i) => y - youngBefore[i]!);
  const rssGrowth = after.map((a, i) => a - before[i]!);
  const growth = rssGrowth.map((g, i) => g - youngGrowth[i]!);
  const perConnection = growth.reduce((a, b) => a + b, 0) / devices;

  const baseline = await baselineBroker();
  const baseBefore = rss(baseline.pid);
  const baseCpuBefore = cpuMs(baseline.pid);
  const base = await storm(
    [baseline.port],
    credentials.map((_, i) => ({ clientId: `conn-baseline-${i}` })),
  );
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const basePerConnection = (rss(baseline.pid) - baseBefore) / devices;
  const baseCpu = cpuMs(baseline.pid) - baseCpuBefore;
  await base.close();
  await baseline.close();

  const kb = (b: number) => (b / 1024).toFixed(1);
  const mb = (b: number) => (b / 2 ** 20).toFixed(0);
  console.log(
    `${devices} devices connecting at ${rate}/s offered, held open; ${adapters.length} MQTT adapter process(es)`,
  );
  console.log(
    `fleet: CONNACK ${JSON.stringify(fleet.codes)}, ${fleet.rate.toFixed(0)} connects/s, ` +
      `CONNACK p50 ${fleet.p50.toFixed(1)} ms p99 ${fleet.p99.toFixed(1)} ms, ` +
      `SYNs dropped on full accept queues ${fleet.overflows} (profile window ${fleet.window})`,
  );
  console.log(`fleet CONNACK p50/p99 ms by second of the storm: ${fleet.timeline.join(" ")}`);
  console.log(
    `machine CPU busy during the fleet's storm (all processes, all cores): ${(fleet.machineBusy * 100).toFixed(0)} %; ` +
      `load generators ${(fleet.generatorCpuMs / devices).toFixed(2)} ms CPU per connect`,
  );
  console.log(
    `fleet memory per connection: ${kb(perConnection)} KB ` +
      `(central ${kb(growth[0]! / devices)} KB, adapters ${kb(growth.slice(1).reduce((a, b) => a + b, 0) / devices)} KB); ` +
      `RSS growth with the young generation ${kb(rssGrowth.reduce((a, b) => a + b, 0) / devices)} KB, young generation ` +
      `of each process before/after ${youngBefore.map((y, i) => `${mb(y)}/${mb(youngAfter[i]!)}`).join(", ")} MB`,
  );
  console.log(
    `baseline (${baseline.label}): CONNACK ${JSON.stringify(base.codes)}, ${base.rate.toFixed(0)} connects/s, ` +
      `CONNACK p50 ${base.p50.toFixed(1)} ms p99 ${base.p99.toFixed(1)} ms, ${kb(basePerConnection)} KB per connection, ` +
      `SYNs dropped ${base.overflows}`,
  );
  console.log(`baseline CONNACK p50/p99 ms by second of the storm: ${base.timeline.join(" ")}`);
  // CPU per connect does not depend on how busy the machine is, unlike the rates and latencies above.
  console.log(
    `CPU per connect: central ${(cpu[0]! / devices).toFixed(2)} ms, adapters ` +
      `${(cpu.slice(1).reduce((a, b) => a + b, 0) / devices).toFixed(2)} ms; baseline ${(baseCpu / devices).toFixed(2)} ms ` +
      `(of which in the kernel: central ${(system[0]! / devices).toFixed(2)} ms, adapters ` +
      `${(system.slice(1).reduce((a, b) => a + b, 0) / devices).toFixed(2)} ms)`,
  );
  console.log(`ratio fleet/baseline connects/s: ${(fleet.rate / base.rate).toFixed(2)}`);
  console.log(`goal CONNACK p99 <= 100 ms at 2,000/s: ${fleet.p99 <= 100 && rate >= 2000 ? "met" : "NOT met"}`);
  console.log(`goal <= 20 KB per connection: ${perConnection <= 20 * 1024 ? "met" : "NOT met"}`);
  printResult({
    measure: `MQTT connect storm, ${devices} devices at ${rate}/s offered: CONNACK p99`,
    figure: `${fleet.p99.toFixed(1)} ms`,
    baseline: `${baseline.label} ${base.p99.toFixed(1)} ms`,
    ratio: fleet.p99 / base.p99,
    goal: "≤ 100 ms at 2,000/s",
    met: fleet.p99 <= 100 && rate >= 2000,
  });
  printResult({
    measure: `memory per held MQTT connection (adapter + central RSS less V8's young generation), ${devices} devices`,
    figure: `${kb(perConnection)} KB`,
    baseline: `${baseline.label} ${kb(basePerConnection)} KB`,
    // Mosquitto's RSS often grows by less than the reading's resolution (0.0 KB a connection): no ratio then.
    ratio: kb(basePerConnection) === "0.0" ? null : perConnection / basePerConnection,
    goal: "≤ 20 KB",
    met: perConnection <= 20 * 1024,
  });
  if (fleet.codes["0"] !== devices) process.exitCode = 1;
} finally {
  await Promise.all(extraAdapters.map((a) => stopProcess(a)));
  await t.close();
}
