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
import type { MqttClient } from "mqtt";
import { startTestFleet } from "../test/helpers.js";
import { connect, connectNewDevices, measure as measureAll, TELEMETRY as payload, WINDOW } from "./mqtt-load.js";
import { baselineBroker } from "./mqtt-baseline.js";
import { lossNote, paced, pacedNote, sequential } from "./mqtt-paced.js";
import { pipelinePass, printPipelinePaced, type MqttBenchRun } from "./mqtt-pipeline-phase.js";
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
const fleetDevices = (productID: string, prefix: string) => connectNewDevices(t, productID, prefix, devices);

const bench: MqttBenchRun = { t, devices, perDevice, warmUpPerDevice, fleetDevices };

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
    const piped = await pipelinePass(bench, ours);
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
  const base = await baselineBroker(baselineUrl);
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

  const piped = await pipelinePass(
    bench,
    ours.filter((c) => c.connected),
  );
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

try {
  await run();
} finally {
  await t.close();
}
