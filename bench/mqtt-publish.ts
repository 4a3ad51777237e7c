/**
 * MQTT uplink throughput end to end: devices publish QoS 1 to the running
 * fleet (adapter → gRPC → registry → SQLite, PUBACK only after the durable
 * write), against the same load on a plain broker that stores nothing and
 * authenticates nobody, measured in the same run on the same machine.
 *
 *   pnpm bench:mqtt [devices=20] [messages per device=2000] [baseline=mqtt://127.0.0.1:1] [warm-up per device]
 *
 * Each side, fleet and baseline, first runs the same load unmeasured (the warm-up: messages per device, default the
 * measured count), so V8's optimizing tiers have compiled every process's path and the figures are its steady state;
 * the warm-up's own rate is printed too. Without it the fleet's measured pass was its processes' first traffic: at
 * 20 x 2,000 the three passes in a row ran at 17.9k, 21.4k and 22.9k msg/s (docs/performance.md, "How to measure"),
 * while the baseline ran last, after the fleet's phases had warmed up the load generator's client code in this
 * process.
 * Then three measured passes of each side, fleet and baseline alternated with both connected throughout, and each
 * side's median counts (the issue's "median of 3", taken within one run so that the machine's drift moves both).
 *
 * The baseline is the broker at the given address when one answers there (the machine's Mosquitto:
 * mqtt://127.0.0.1:1883), else a bare aedes broker in this process. The ratio says what authentication, policies,
 * the registry hop and durable storage cost. The defaults are issue 19's measurement (its goal is stated against
 * bare aedes, so nothing should answer at the default address): with Mosquitto's 1883 the ratio is against it.
 *
 * Then PUBACK latency (p50/p99) with the devices paced to 80% of the fleet's rate just measured (an open loop, 5 s),
 * on the baseline and then on the fleet, and one device of the fleet publishing in sequence (p50). Goals (issue 19):
 * ratio at least 0.5, at least 25,000 msg/s, p99 at 80% at most 50 ms, sequential p50 at most 2 ms.
 *
 * Last, the data pipeline's phase: the same load on devices of a product with streams, timed until the pipeline has
 * decoded every message, then the devices with and without a data model each paced for 5 s at 80 % of that rate, so
 * that the PUBACK tail a fleet with a data model sees stands beside the plain one at the same rate (no goal is set).
 *
 * With BENCH_CPU_PROF_DIR set, the central node and the adapters run under `node --cpu-prof` writing their profiles
 * there, and only the rate and the pass at 80% are measured (no baseline, sequential or pipeline phase), so the
 * profiles show the ingest path alone; `tsx scripts/cpu-profile-top.ts --from=… --to=… <dir>/*.cpuprofile` prints
 * their top self-time functions in a pass's window, which the benchmark prints. BENCH_NODE_ARGS (space-separated)
 * adds Node options to the fleet's processes, to try a V8 setting without a code change. BENCH_ONLY=pipeline runs
 * the data pipeline's phase alone (profiled or not), to compare or profile that path.
 */
import { createServer, type Server } from "node:net";
import { Aedes } from "aedes";
import type { MqttClient } from "mqtt";
import { startTestFleet } from "../test/helpers.js";
import { connect, measure as measureAll, TELEMETRY as payload, WINDOW } from "./mqtt-load.js";
import { printResult } from "./result.js";
import { cpuSeconds, monotonicUs, percentile, positiveInt } from "./figures.js";

const devices = positiveInt(process.argv[2], 20);
const perDevice = positiveInt(process.argv[3], 2000);
const baselineUrl = process.argv[4] ?? "mqtt://127.0.0.1:1";
const warmUpPerDevice = positiveInt(process.argv[5], perDevice);

/** Messages per second for every client publishing `perDevice` at once. */
const measure = (clients: MqttClient[]) => measureAll(clients, perDevice);

/** The same load, `warmUpPerDevice` each, unmeasured but for its rate (see the warm-up above). */
const warmUp = (clients: MqttClient[]) => measureAll(clients, warmUpPerDevice);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The pass at 80 %: PUBACK latencies (ms), PUBLISHes the fleet never answered, and devices it disconnected. */
interface PacedPass {
  latencies: number[];
  timeline: string[];
  window: string;
  unanswered: number;
  closed: number;
}

/** The topics the paced passes publish to, made once rather than per PUBLISH. */
const TOPICS = Array.from({ length: 10 }, (_, i) => `telemetry/${i}`);
const QOS1 = { qos: 1 } as const;

/**
 * PUBACK latencies (ms) of every client publishing at `rate` msg/s in all, paced every 10 ms, for `seconds`: an open
 * loop, so a stall of the fleet piles up PUBLISHes awaiting their PUBACK. A device the fleet disconnects meanwhile
 * (an adapter whose uplink buffer is full closes it) leaves its PUBLISHes unanswered: each counts as lost (an
 * infinite latency) instead of being waited for, which would hang the run.
 *
 * The generator measures its own pauses too, so it keeps its garbage small: one callback per PUBLISH and typed arrays
 * sized for the pass. It used to keep four promises per PUBLISH alive until the end of the pass; its scavenges then
 * took 600–700 ms of each 5 s pass, single pauses up to 20 ms and event-loop lags up to 157 ms (a scratch preload
 * timing GC and lags in every process), and each of them showed as the fleet's latency.
 */
async function paced(clients: MqttClient[], rate: number, seconds: number): Promise<PacedPass> {
  const total = Math.floor(rate * seconds);
  const sentAt = new Float64Array(total);
  const latency = new Float64Array(total);
  const pending = new Map(clients.map((c) => [c, new Set<number>()]));
  let open = 0;
  let sending = true;
  let unanswered = 0;
  let allAnswered = () => {};
  const answered = new Promise<void>((resolve) => (allAnswered = resolve));
  const settle = (c: MqttClient, i: number, ms: number) => {
    if (!pending.get(c)!.delete(i)) return;
    latency[i] = ms;
    if (ms === Infinity) unanswered++;
    if (--open === 0 && !sending) allAnswered();
  };
  const onClose = new Map(
    clients.map((c) => [c, () => [...pending.get(c)!].forEach((i) => settle(c, i, Infinity))] as const),
  );
  for (const [c, lose] of onClose) c.on("close", lose);
  const startedUs = monotonicUs();
  const started = performance.now();
  let sent = 0;
  while (performance.now() - started < seconds * 1000) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
    for (; sent < due; sent++) {
      const i = sent;
      const c = clients[i % clients.length]!;
      sentAt[i] = performance.now();
      if (!c.connected) {
        latency[i] = Infinity;
        unanswered++;
        continue;
      }
      open++;
      pending.get(c)!.add(i);
      c.publish(TOPICS[i % TOPICS.length]!, payload, QOS1, (err) =>
        settle(c, i, err ? Infinity : performance.now() - sentAt[i]!),
      );
    }
    await sleep(10);
  }
  sending = false;
  if (open > 0) await answered;
  for (const [c, lose] of onClose) c.off("close", lose);
  const latencies = Array.from(latency.subarray(0, sent));
  // By the half second each PUBLISH went out in: a pause of one process shows as one bad slice, a queue as a rise.
  const bySlice: number[][] = [];
  for (let i = 0; i < sent; i++) (bySlice[Math.floor((sentAt[i]! - started) / 500)] ??= []).push(latencies[i]!);
  const timeline = Array.from(bySlice, (l = []) => percentile(l, 99).toFixed(0));
  const closed = clients.filter((c) => !c.connected).length;
  return { latencies, timeline, window: `--from=${startedUs} --to=${monotonicUs()}`, unanswered, closed };
}

/** What the pass at 80 % lost, for its line: nothing, or the PUBLISHes left unanswered and the devices closed. */
const lossNote = (p: PacedPass) =>
  p.unanswered === 0
    ? ""
    : `; ${p.unanswered} PUBLISHes unanswered, ${p.closed} devices disconnected by the fleet (an uplink buffer full?)`;

/** PUBACK latencies (ms) of one client publishing `n` messages one after the other. */
async function sequential(client: MqttClient, n: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const at = performance.now();
    await client.publishAsync(`telemetry/${i % 10}`, payload, { qos: 1 });
    latencies.push(performance.now() - at);
  }
  return latencies;
}

/** A broker for the baseline: the given address when something answers there, else bare aedes on a free port. */
async function baselineBroker(): Promise<{ url: string; label: string; close: () => Promise<void> }> {
  const probe = await connect(baselineUrl).catch(() => undefined);
  if (probe) {
    await probe.endAsync();
    return { url: baselineUrl, label: `broker at ${baselineUrl}`, close: async () => {} };
  }
  const broker = await Aedes.createBroker();
  const server: Server = createServer(broker.handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    label: "bare aedes (in process)",
    close: () => new Promise<void>((resolve) => server.close(() => broker.close(() => resolve()))),
  };
}

/** Measured passes of each side, alternated. */
const PASSES = 3;

/** Each pass's rate, for the record. */
const listRates = (rates: readonly number[]) => rates.map((r) => Math.round(r).toLocaleString("en-US")).join(", ");

const profileDir = process.env.BENCH_CPU_PROF_DIR;
const t = await startTestFleet(
  { IOT_LOG_LEVEL: "error" },
  {
    nodeArgs: [
      ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
      ...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
    ],
  },
);

/** Connects `devices` new devices of the product to the fleet. */
async function fleetDevices(productID: string, prefix: string) {
  const made: { deviceID: string; client: MqttClient }[] = [];
  for (let i = 0; i < devices; i++) {
    const d = (
      await t.api("POST", "/devices", {
        productID,
        deviceName: `${prefix}-${i}`,
        deviceType: 1,
        upLinkSystem: 1,
        authType: 1,
      })
    ).body;
    const client = await connect(t.mqttUrl, { clientId: d.deviceID, username: d.deviceUsername, password: d.token });
    made.push({ deviceID: d.deviceID, client });
  }
  return made;
}

/**
 * A product whose JSON stream on `telemetry/#` has the payload's four numeric points, limits on temperature (so
 * every message is checked) and a formula metric: each uplink becomes four values, a metric value and a rule check.
 */
async function pipelineProduct(): Promise<string> {
  const product = (await t.api("POST", "/products", { productName: "bench pipeline", cloudProtocol: 1 })).body;
  const ids: number[] = [];
  for (const name of ["temperature", "humidity", "battery", "pressure"]) {
    const r = await t.api("POST", "/data_points", {
      productIntID: product.id,
      dataPointName: name,
      dataPointID: name,
      pointDataType: 1,
      dataTransType: 1,
      ...(name === "temperature" ? { upperLimit: 80, lowerLimit: -40 } : {}),
    });
    ids.push(r.body.id);
  }
  await t.api("POST", "/data_streams", {
    productIntID: product.id,
    streamName: "telemetry",
    streamType: 1,
    streamDataType: 1,
    topic: "telemetry/#",
    dataPoints: ids,
  });
  await t.api("POST", "/metrics", { metricName: "F", dataPointIntID: ids[0], expressions: "x * 1.8 + 32" });
  return product.productID as string;
}

/**
 * Uplinks the central node's data pipeline has gone through and committed the values of
 * (`iot_pipeline_uplinks_total` on its `/metrics`). Asking the REST API for each device's stored values instead
 * answered too early (it returns a point's newest 1,000, reached halfway through 2,000 messages a device) and loaded
 * the node it measured with 20 lists of 1,000 values every 20 ms.
 */
async function pipelineUplinks(): Promise<number> {
  const text = await (await fetch(`${t.apiUrl.replace(/\/api\/v1$/, "")}/metrics`)).text();
  const line = /^iot_pipeline_uplinks_total (\d+)/m.exec(text);
  if (!line) throw new Error("the central node's /metrics has no iot_pipeline_uplinks_total");
  return Number(line[1]);
}

/**
 * The same load on a product with streams, after a warm-up on devices of their own: messages per second from the
 * first PUBLISH until the pipeline has gone through the last of them (its values stored), not until the last PUBACK.
 */
async function pipelinePass(plain: MqttClient[]): Promise<PipelinePhase> {
  const pipedProduct = await pipelineProduct();
  const warmed = await fleetDevices(pipedProduct, "piped-warm-up");
  await warmUp(warmed.map((d) => d.client));
  await Promise.all(warmed.map((d) => d.client.endAsync()));
  const expected = (await pipelineUplinksAfter(devices * warmUpPerDevice)) + devices * perDevice;
  const piped = await fleetDevices(pipedProduct, "piped");
  const from = monotonicUs();
  const started = performance.now();
  const centralCpu = cpuSeconds(t.fleet.central.child.pid) ?? NaN;
  await measure(piped.map((d) => d.client));
  await pipelineUplinksAfter(expected);
  const rate = (devices * perDevice) / ((performance.now() - started) / 1000);
  const centralCpuPer100k =
    (((cpuSeconds(t.fleet.central.child.pid) ?? NaN) - centralCpu) * 100_000) / (devices * perDevice);
  const window = `--from=${from} --to=${monotonicUs()}`;
  const pipedClients = piped.map((d) => d.client);
  // The same paced load on devices without and with a data model, at 80 % of what the pipeline keeps up with: how
  // much the pipeline behind ingest lengthens the PUBACK tail of a fleet that decodes what it stores.
  const pacedRate = rate * 0.8;
  const without = await paced(plain, pacedRate, 5);
  const withModel = await paced(pipedClients, pacedRate, 5);
  await Promise.all(pipedClients.map((c) => c.endAsync(!c.connected)));
  return { rate, window, centralCpuPer100k, pacedRate, without, withModel };
}

/** The pipeline's phase: its rate, its window and CPU, and the paced passes without and with a data model. */
interface PipelinePhase {
  rate: number;
  window: string;
  centralCpuPer100k: number;
  pacedRate: number;
  without: PacedPass;
  withModel: PacedPass;
}

/** "p50 … ms, p99 … ms" of a paced pass, with its half seconds, window and losses. */
const pacedNote = (p: PacedPass) =>
  `p50 ${percentile(p.latencies, 50).toFixed(2)} ms, p99 ${percentile(p.latencies, 99).toFixed(2)} ms ` +
  `(by half second ${p.timeline.join(" ")}; window ${p.window})${lossNote(p)}`;

/** Longest the pipeline may go through no uplink while the benchmark waits for it, ms: past it the run fails. */
const PIPELINE_STALL_MS = 60_000;

/**
 * Waits until the pipeline has gone through at least `count` uplinks since the fleet started; says how many. Throws
 * when it goes through none for PIPELINE_STALL_MS (a failing pipeline would otherwise hang the run).
 */
async function pipelineUplinksAfter(count: number): Promise<number> {
  let last = -1;
  let movedAt = performance.now();
  for (;;) {
    const seen = await pipelineUplinks();
    if (seen >= count) return seen;
    if (seen !== last) [last, movedAt] = [seen, performance.now()];
    else if (performance.now() - movedAt > PIPELINE_STALL_MS)
      throw new Error(`the data pipeline stalled at ${seen} of ${count} uplinks (its log says why)`);
    await sleep(20);
  }
}

/**
 * Counts the CPU seconds the central node, the MQTT adapter and this process (the load generator) spend in the passes
 * run through `pass` (all devices publishing) and says them per 100,000 messages: what each hop costs, whatever else
 * the machine runs.
 */
function cpuMeter() {
  const pids = [t.fleet.central.child.pid, t.fleet.adapters.find((a) => a.name === "mqtt-adapter")?.child.pid];
  const used = { central: 0, adapter: 0, self: 0, messages: 0 };
  return {
    async pass(phase: () => Promise<number>): Promise<number> {
      const [central, adapter] = pids.map(cpuSeconds);
      const self = process.cpuUsage();
      const rate = await phase();
      // NaN (printed as "?") when /proc cannot tell.
      used.central += (cpuSeconds(pids[0]) ?? NaN) - (central ?? NaN);
      used.adapter += (cpuSeconds(pids[1]) ?? NaN) - (adapter ?? NaN);
      const { user, system } = process.cpuUsage(self);
      used.self += (user + system) / 1e6;
      used.messages += devices * perDevice;
      return rate;
    },
    note(): string {
      const per = (s: number) => (Number.isFinite(s) ? ((s * 100_000) / used.messages).toFixed(2) : "?");
      return (
        `CPU s per 100k messages: central ${per(used.central)}, adapter ${per(used.adapter)}, ` +
        `load generator ${per(used.self)}`
      );
    },
  };
}

/** The whole run (only the rate and the pass at 80 % when profiling). */
async function run(): Promise<void> {
  const plainID = (await t.api("POST", "/products", { productName: "bench", cloudProtocol: 1 })).body.productID;
  const plain = await fleetDevices(plainID, "bench");
  const ours = plain.map((d) => d.client);
  const fleetWarmUpRate = await warmUp(ours);
  const cpu = cpuMeter();
  if (process.env.BENCH_ONLY === "pipeline") {
    const piped = await pipelinePass(ours);
    console.log(
      `fleet with the data pipeline: ${Math.round(piped.rate)} msg/s, central CPU s per 100k ` +
        `${piped.centralCpuPer100k.toFixed(2)}, measured pass ${piped.window}` +
        (profileDir ? `; CPU profiles in ${profileDir}` : ""),
    );
    printPipelinePaced(piped);
    return;
  }
  if (profileDir) {
    const from = monotonicUs();
    const fleetRate = await cpu.pass(() => measure(ours));
    const to = monotonicUs();
    const at80 = await paced(ours, fleetRate * 0.8, 5);
    await Promise.all(ours.map((c) => c.endAsync(!c.connected)));
    console.log(
      `fleet (SQLite, durable before PUBACK): ${Math.round(fleetRate)} msg/s (warm-up ${Math.round(fleetWarmUpRate)} msg/s); ` +
        `CPU profiles in ${profileDir}, measured pass --from=${from} --to=${to}`,
    );
    console.log(cpu.note());
    console.log(
      `fleet PUBACK at 80%: p99 ${percentile(at80.latencies, 99).toFixed(2)} ms, by half second ` +
        `${at80.timeline.join(" ")} (window ${at80.window})${lossNote(at80)}`,
    );
    return;
  }
  // The fleet's passes alternate with the baseline's, both connected throughout, and each side's median counts: the
  // machine's speed drifts over a run (the in-process baseline gave 36,000 and 65,000 msg/s in two runs of one hour),
  // and a drift then moves both sides alike.
  const base = await baselineBroker();
  const theirs = await Promise.all(
    Array.from({ length: devices }, (_, i) => connect(base.url, { clientId: `bench-baseline-${i}` })),
  );
  const baseWarmUpRate = await warmUp(theirs);
  const fleetRates: number[] = [];
  const baseRates: number[] = [];
  for (let pass = 0; pass < PASSES; pass++) {
    fleetRates.push(await cpu.pass(() => measure(ours)));
    baseRates.push(await measure(theirs));
  }
  const [fleetRate, baseRate] = [percentile(fleetRates, 50), percentile(baseRates, 50)];
  // The baseline at the fleet's paced rate: what the load generator and a broker that stores nothing make of the
  // same open loop, beside the fleet's p99.
  const base80 = await paced(theirs, fleetRate * 0.8, 5);
  await Promise.all(theirs.map((c) => c.endAsync()));
  await base.close();

  const pass80 = await paced(ours, fleetRate * 0.8, 5);
  const at80 = pass80.latencies;
  const stillConnected = ours.find((c) => c.connected);
  if (!stillConnected) throw new Error(`the fleet disconnected every device in the pass at 80 %${lossNote(pass80)}`);
  const oneByOne = await sequential(stillConnected, 500);
  const stored = (await t.api("GET", "/device_events?_limit=1")).body.meta?.count;

  const piped = await pipelinePass(ours.filter((c) => c.connected));
  await Promise.all(ours.map((c) => c.endAsync(!c.connected)));
  const pipelineRate = piped.rate;

  const fmt = (x: number) => Math.round(x).toLocaleString("en-US").padStart(9);
  console.log(
    `${devices} devices x ${perDevice} QoS 1 publishes (${payload.length}-byte payload, ${WINDOW} in flight per device), ` +
      `each side after a warm-up of ${warmUpPerDevice} per device (fleet ${fmt(fleetWarmUpRate).trim()} msg/s, ` +
      `baseline ${fmt(baseWarmUpRate).trim()} msg/s)`,
  );
  console.log(
    `fleet (SQLite, durable before PUBACK): ${fmt(fleetRate)} msg/s, the median of ${listRates(fleetRates)}` +
      (stored !== undefined ? ` (${stored} events stored)` : ""),
  );
  console.log(
    `fleet with the data pipeline (4 values, a formula metric and a limit check per message, until stored): ${fmt(pipelineRate)} msg/s ` +
      `(central CPU s per 100k ${piped.centralCpuPer100k.toFixed(2)})`,
  );
  console.log(cpu.note());
  console.log(
    `baseline, ${base.label}: ${fmt(baseRate)} msg/s, the median of ${listRates(baseRates)} (stores nothing)`,
  );
  const met = (ok: boolean) => (ok ? "met" : "NOT met");
  const ratio = fleetRate / baseRate;
  console.log(
    `ratio fleet/baseline: ${ratio.toFixed(2)} (goal >= 0.5: ${met(ratio >= 0.5)}; >= 25,000 msg/s: ${met(fleetRate >= 25_000)})`,
  );
  const p99 = percentile(at80, 99);
  console.log(
    `fleet PUBACK at 80% of its rate (${fmt(fleetRate * 0.8).trim()} msg/s, 5 s): p50 ${percentile(at80, 50).toFixed(2)} ms, ` +
      `p99 ${p99.toFixed(2)} ms (goal <= 50 ms: ${met(p99 <= 50)})`,
  );
  console.log(
    `fleet PUBACK p99 ms by half second at 80%: ${pass80.timeline.join(" ")} (window ${pass80.window})${lossNote(pass80)}`,
  );
  const baseP99 = percentile(base80.latencies, 99);
  console.log(`baseline PUBACK at the same rate, ${base.label}: ${pacedNote(base80)}`);
  const seqP50 = percentile(oneByOne, 50);
  console.log(`fleet, one device in sequence: PUBACK p50 ${seqP50.toFixed(2)} ms (goal <= 2 ms: ${met(seqP50 <= 2)})`);
  printResult({
    measure: `MQTT QoS 1 ingest, ${devices} devices (durable before PUBACK)`,
    figure: `${Math.round(fleetRate)} msg/s`,
    baseline: `${base.label} ${Math.round(baseRate)} msg/s`,
    ratio: fleetRate / baseRate,
    goal: "≥ 50% of bare aedes and ≥ 25,000 msg/s",
    met: fleetRate / baseRate >= 0.5 && fleetRate >= 25_000,
  });
  printResult({
    measure: `MQTT ingest with the data pipeline, ${devices} devices`,
    figure: `${Math.round(pipelineRate)} msg/s`,
    baseline: `without the pipeline ${Math.round(fleetRate)} msg/s`,
    ratio: pipelineRate / fleetRate,
    goal: "",
    met: null,
  });
  printResult({
    measure: "MQTT PUBACK p99 at 80% of the fleet's rate",
    figure: `${p99.toFixed(1)} ms`,
    baseline: `${base.label} at the same rate ${baseP99.toFixed(1)} ms`,
    ratio: p99 / baseP99,
    goal: "≤ 50 ms",
    met: p99 <= 50,
  });
  printResult({
    measure: "MQTT, one device publishing in sequence: PUBACK p50",
    figure: `${seqP50.toFixed(2)} ms`,
    baseline: "",
    ratio: null,
    goal: "≤ 2 ms",
    met: seqP50 <= 2,
  });
  console.log(
    `ratio with/without pipeline: ${(pipelineRate / fleetRate).toFixed(2)} (the pipeline costs ${Math.round((1 - pipelineRate / fleetRate) * 100)}% of throughput)`,
  );
  printPipelinePaced(piped);
}

/** The paced passes of the pipeline's phase: a line each, and the data model's p99 beside the plain one. */
function printPipelinePaced(piped: PipelinePhase): void {
  const rate = Math.round(piped.pacedRate).toLocaleString("en-US");
  console.log(
    `fleet PUBACK at ${rate} msg/s (80% of the pipeline's rate), without a data model: ${pacedNote(piped.without)}`,
  );
  console.log(`fleet PUBACK at ${rate} msg/s, with the data model: ${pacedNote(piped.withModel)}`);
  const [p99, plainP99] = [percentile(piped.withModel.latencies, 99), percentile(piped.without.latencies, 99)];
  printResult({
    measure: "MQTT PUBACK p99 with the data pipeline, at 80% of its rate",
    figure: `${p99.toFixed(1)} ms`,
    baseline: `without a data model ${plainP99.toFixed(1)} ms`,
    ratio: p99 / plainP99,
    goal: "",
    met: null,
  });
}

try {
  await run();
} finally {
  await t.close();
}
