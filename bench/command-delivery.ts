/**
 * Command delivery through the running fleet: `POST /device_publish` at a steady rate to MQTT devices connected to
 * the MQTT adapter, timed from the REST call to the device's receipt; then one `POST /group_publish` (needAck 1) to
 * every device, timed until the task reports success (status 3: every member acknowledged). Beside the same traffic
 * through a bare aedes broker in this process (a client publishing to each device's topic, and one publish fanned
 * out to all), measured in the same run on the same machine.
 *
 *   pnpm bench:commands [devices=10000] [rate=1000] [seconds=5] [warm-up seconds=5]
 *
 * Each side first sends the same commands at the same rate for the warm-up's seconds, unmeasured but for its
 * latencies, which are printed too: the measured phase is the steady state of processes whose code V8 has compiled.
 * Without it the measured phase was the command path's first traffic, and its first seconds set the p95: one second
 * at a time, the fleet's p95 fell from 43.6 ms through 16.4 and 10.6 to 4.4–6.2 ms from the fourth second on (15 s
 * at 1,000/s; docs/performance.md, "How to measure").
 *
 * The goals (issue 19): device_publish to receipt p95 ≤ 10 ms at 1,000 commands/s; a group publish to 10,000
 * connected devices delivered within 2 s. Each phase also prints the CPU milliseconds it cost the central node, the
 * MQTT adapter and this process (the load generator) per command, read from /proc: what a busy machine distorts far
 * less than latencies.
 *
 * With BENCH_CPU_PROF_DIR set, the central node and the adapters run under `node --cpu-prof` writing their profiles
 * to that folder when they stop (the first is the central node, the second the MQTT adapter); see
 * docs/performance.md.
 */
import { Agent, request } from "node:http";
import { startTestFleet, type TestDevice, type TestFleet } from "../test/helpers.js";
import { publishPacket, rawConnect, rawDevice, type RawDevice } from "../test/raw-mqtt.js";
import { forkAedes } from "./aedes-broker.js";
import { cpuSeconds, monotonicUs, percentile } from "./figures.js";
import { printResult } from "./result.js";

const devices = Number(process.argv[2] ?? 10_000);
const rate = Number(process.argv[3] ?? 1_000);
const seconds = Number(process.argv[4] ?? 5);
const warmUpSeconds = Number(process.argv[5] ?? 5);
for (const n of [devices, rate, seconds, warmUpSeconds])
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`expected positive numbers, got ${process.argv.slice(2).join(" ")}`);
const [P95_GOAL_MS, GROUP_GOAL_S] = [10, 2];

/** Runs `work` over `items` with at most `width` at a time. */
async function inParallel<T, R>(items: readonly T[], width: number, work: (item: T, i: number) => Promise<R>) {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) out[i] = await work(items[i]!, i);
    }),
  );
  return out;
}

/** Numbers of the messages of each phase: the warm-up's, then the measured ones. */
const phases = {
  warmUp: { first: 0, count: Math.round(rate * warmUpSeconds) },
  measured: { first: Math.round(rate * warmUpSeconds), count: Math.round(rate * seconds) },
};
type Phase = (typeof phases)[keyof typeof phases];

/** Calls `send(seq)` for the phase's numbers, `rate` a second (catching up on late ticks); resolves once all went. */
async function steady(phase: Phase, send: (seq: number) => void) {
  const started = performance.now();
  let sent = 0;
  while (sent < phase.count) {
    const due = Math.min(phase.count, Math.floor(((performance.now() - started) / 1000) * rate) + 1);
    for (; sent < due; sent++) send(phase.first + sent);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Latencies of numbered messages: the sender notes when each left, the receiver when it first arrived. */
class Latencies {
  readonly sentAt: number[] = [];
  readonly took: number[] = [];
  arrived(payload: Buffer) {
    const seq = Number(payload.toString());
    const at = this.sentAt[seq];
    if (at !== undefined) this.took[seq] ??= performance.now() - at;
  }
  /** Waits for every message of the phase (at most `timeoutMs`), then answers how many came and their percentiles. */
  async all(phase: Phase, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    const received = () => this.took.slice(phase.first, phase.first + phase.count).filter((t) => t !== undefined);
    while (received().length < phase.count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const took = received();
    const [p50, p95, p99] = [50, 95, 99].map((p) => percentile(took, p)) as [number, number, number];
    return { received: took.length, p50, p95, p99 };
  }
}

/** Creates the devices and a group of all of them through the API. */
async function provision(t: TestFleet) {
  const productID = (await t.api("POST", "/products", { productName: "cmd-bench", cloudProtocol: 1 })).body.productID;
  const names = Array.from({ length: devices }, (_, i) => `cmd-${i}`);
  const created = await inParallel(names, 32, (name) => t.newDevice(productID, name));
  const group = (await t.api("POST", "/groups", { productID, groupName: "all", description: "bench" })).body as {
    id: number;
    groupID: string;
  };
  for (let i = 0; i < created.length; i += 1000) {
    const r = await t.api("POST", `/groups/${group.id}/devices`, { ids: created.slice(i, i + 1000).map((d) => d.id) });
    if (r.status >= 300) throw new Error(`group members not added: ${r.status} ${JSON.stringify(r.body)}`);
  }
  return { created, group };
}

/** CPU ms per command a phase cost the central node, the MQTT adapter and this process (the load generator). */
function cpuMeter(t: TestFleet) {
  const pids = [t.fleet.central.child.pid, t.fleet.adapters.find((a) => a.name === "mqtt-adapter")?.child.pid];
  const before = { procs: pids.map(cpuSeconds), self: process.cpuUsage(), at: monotonicUs() };
  return (commands: number) => {
    const self = process.cpuUsage(before.self);
    const [central, adapter] = pids.map((pid, i) => {
      const [now, from] = [cpuSeconds(pid), before.procs[i]];
      return now === undefined || from === undefined ? "?" : (((now - from) * 1000) / commands).toFixed(3);
    });
    const generator = ((self.user + self.system) / 1000 / commands).toFixed(3);
    const window = process.env.BENCH_CPU_PROF_DIR ? ` (profile window --from=${before.at} --to=${monotonicUs()})` : "";
    return `CPU ms per command: central ${central}, adapter ${adapter}, load generator ${generator}${window}`;
  };
}

/**
 * POSTs JSON with node:http over a pool of keep-alive connections and answers the status: the same REST calls as
 * `fetch`, at a fraction of its CPU in this process (which shares the machine's two cores with the fleet).
 */
function restPoster(t: TestFleet) {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const url = new URL(t.apiUrl);
  return (path: string, body: unknown) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const data = JSON.stringify(body);
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method: "POST",
          path: `${url.pathname}${path}`,
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(data),
            authorization: `Bearer ${t.token}`,
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(data);
    });
}

/** The fleet's side: device_publish at the rate, then one group publish. */
async function fleetRun(t: TestFleet, created: TestDevice[], group: { groupID: string }) {
  const port = Number(new URL(t.mqttUrl).port);
  const single = new Latencies();
  let groupReceived = 0;
  let groupPhase = false;
  const connected: RawDevice[] = await inParallel(created, 200, (d) =>
    rawDevice(port, { clientId: d.deviceID, username: d.deviceUsername, password: d.token }, ["inbox"], (payload) => {
      if (groupPhase) groupReceived++;
      else single.arrived(payload);
    }),
  );
  const failures: string[] = [];
  const post = restPoster(t);
  /** device_publish of the phase's numbers at the rate; answers the REST answers' times. */
  const publishPhase = async (phase: Phase) => {
    const restMs: number[] = [];
    await steady(phase, (seq) => {
      const d = created[seq % created.length]!;
      single.sentAt[seq] = performance.now();
      post("/device_publish", { deviceID: d.deviceID, payload: String(seq) }).then(
        (r) =>
          r.status === 201
            ? restMs.push(performance.now() - single.sentAt[seq]!)
            : failures.push(`${r.status} ${r.text}`),
        (e: Error) =>
          failures.push(`${e.message}${e.cause ? ` (${String((e.cause as Error).message ?? e.cause)})` : ""}`),
      );
    });
    return restMs;
  };
  await publishPhase(phases.warmUp);
  const warmUp = await single.all(phases.warmUp);
  const singleCpu = cpuMeter(t);
  const restMs = await publishPhase(phases.measured);
  const total = phases.measured.count;
  const one = await single.all(phases.measured);
  const singleCpuNote = singleCpu(total);
  groupPhase = true;
  const groupCpu = cpuMeter(t);
  const started = performance.now();
  const r = await t.api("POST", "/group_publish", { groupID: group.groupID, payload: "all", needAck: 1 });
  if (r.status !== 201) throw new Error(`group_publish: ${r.status} ${JSON.stringify(r.body)}`);
  let status = 0;
  let task: unknown;
  while (status !== 3 && performance.now() - started < 60_000) {
    task = (await t.api("GET", r.body.statusUrl as string)).body;
    status = (task as { status: number }).status;
    if (status !== 3) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const groupS = (performance.now() - started) / 1000;
  const groupCpuNote = groupCpu(created.length);
  for (const c of connected) c.close();
  return {
    warmUp,
    one,
    total,
    restP95: percentile(restMs, 95),
    failures,
    groupS,
    groupReceived,
    status,
    task,
    singleCpuNote,
    groupCpuNote,
  };
}

/** The baseline: a client publishing (QoS 1) to each device's topic on bare aedes (own process), then one to all. */
async function baselineRun() {
  const broker = await forkAedes();
  const port = broker.port;
  const single = new Latencies();
  let fanout = 0;
  let groupPhase = false;
  const clients = await inParallel(Array.from({ length: devices }), 200, (_, i) =>
    rawDevice(port, { clientId: `base-${i}` }, [`cmd/${i}`, "all"], (payload) => {
      if (groupPhase) fanout++;
      else single.arrived(payload);
    }),
  );
  const publisher = (await rawConnect(port, { clientId: "base-publisher" })).socket;
  let messageId = 0;
  const publish = (topic: string, payload: string) =>
    publisher.write(publishPacket(topic, payload, (messageId = (messageId % 65535) + 1)));
  const publishPhase = (phase: Phase) =>
    steady(phase, (seq) => {
      single.sentAt[seq] = performance.now();
      publish(`cmd/${seq % devices}`, String(seq));
    });
  await publishPhase(phases.warmUp);
  await single.all(phases.warmUp);
  await publishPhase(phases.measured);
  const one = await single.all(phases.measured);
  groupPhase = true;
  const started = performance.now();
  publish("all", "all");
  while (fanout < devices && performance.now() - started < 60_000) await new Promise((r) => setTimeout(r, 5));
  const fanoutS = (performance.now() - started) / 1000;
  for (const c of clients) c.close();
  publisher.destroy();
  await broker.close();
  return { one, fanoutS };
}

const profileDir = process.env.BENCH_CPU_PROF_DIR;
const t = await startTestFleet(
  { IOT_LOG_LEVEL: "error" },
  profileDir ? { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] } : {},
);
let fleet: Awaited<ReturnType<typeof fleetRun>>;
try {
  const provisioning = performance.now();
  const { created, group } = await provision(t);
  console.log(
    `created ${devices} devices and their group in ${((performance.now() - provisioning) / 1000).toFixed(1)} s`,
  );
  fleet = await fleetRun(t, created, group);
} finally {
  await t.close();
}
const base = await baselineRun();
const ms = (n: number) => `${n.toFixed(2)} ms`;
console.log(
  `device_publish at ${rate}/s for ${seconds} s to ${devices} MQTT devices: ${fleet.one.received} of ${fleet.total} ` +
    `received; REST call to receipt p50 ${ms(fleet.one.p50)}, p95 ${ms(fleet.one.p95)}, p99 ${ms(fleet.one.p99)}; ` +
    `REST answer p95 ${ms(fleet.restP95)}; failed calls ${fleet.failures.length}` +
    (fleet.failures.length > 0 ? ` (first: ${fleet.failures[0]})` : ""),
);
console.log(
  `the warm-up before it (${warmUpSeconds} s at ${rate}/s, not in the figures above): ${fleet.warmUp.received} ` +
    `received; p50 ${ms(fleet.warmUp.p50)}, p95 ${ms(fleet.warmUp.p95)}, p99 ${ms(fleet.warmUp.p99)}`,
);
console.log(`device_publish phase: ${fleet.singleCpuNote}`);
console.log(
  `baseline (bare aedes, a client publishing QoS 1 to each device's topic): ${base.one.received} received; ` +
    `p50 ${ms(base.one.p50)}, p95 ${ms(base.one.p95)}, p99 ${ms(base.one.p99)}`,
);
console.log(
  `group_publish (needAck 1) to ${devices} devices: task status ${fleet.status} after ${fleet.groupS.toFixed(2)} s, ` +
    `${fleet.groupReceived} received; ${JSON.stringify(fleet.task)}`,
);
console.log(`group_publish phase: ${fleet.groupCpuNote} (per member)`);
console.log(
  `baseline (bare aedes, one publish to ${devices} subscribers): all received in ${base.fanoutS.toFixed(2)} s`,
);
const allReceived =
  fleet.one.received === fleet.total && fleet.warmUp.received === phases.warmUp.count && fleet.failures.length === 0;
printResult({
  measure: `device_publish → device receipt p95 at ${rate}/s (${devices} MQTT devices)`,
  figure: ms(fleet.one.p95),
  baseline: `bare aedes p95 ${ms(base.one.p95)}`,
  ratio: fleet.one.p95 / base.one.p95,
  goal: `p95 ≤ ${P95_GOAL_MS} ms, all delivered`,
  met: allReceived && fleet.one.p95 <= P95_GOAL_MS,
});
printResult({
  measure: `group_publish to ${devices} devices until task success`,
  figure: `${fleet.groupS.toFixed(2)} s`,
  baseline: `bare aedes fan-out ${base.fanoutS.toFixed(2)} s`,
  ratio: fleet.groupS / base.fanoutS,
  goal: `≤ ${GROUP_GOAL_S} s`,
  met: fleet.status === 3 && fleet.groupS <= GROUP_GOAL_S,
});
if (!allReceived || fleet.status !== 3) process.exitCode = 1;
