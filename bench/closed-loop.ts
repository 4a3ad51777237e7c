/**
 * Shared by the device publish benchmarks (bench:http, bench:coap): a closed loop of clients, each sending its next
 * request when the previous one is answered, with the rate and latency percentiles of the run, and the report lines
 * that put a figure beside its baseline measured in the same run.
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { cpuSeconds, percentile } from "./figures.js";
import { printResult } from "./result.js";
import { reachable } from "../scripts/fleet.js";
import { startTestFleet, type TestFleet } from "../test/helpers.js";

/** Requests per second and each request's latency (ms) of one run. */
export interface LoopResult {
  readonly rate: number;
  readonly latencies: number[];
}

/**
 * Runs `clients` loops until `total` requests were answered; `send(client, i)` resolves when request `i` of that
 * client is answered (and rejects when it failed, which fails the run: a benchmark of errors says nothing).
 */
export async function closedLoop(
  clients: number,
  total: number,
  send: (client: number, i: number) => Promise<void>,
): Promise<LoopResult> {
  const latencies: number[] = [];
  let next = 0;
  const loop = async (client: number) => {
    while (next < total) {
      const i = next++;
      const at = performance.now();
      await send(client, i);
      latencies.push(performance.now() - at);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, (_, c) => loop(c)));
  return { rate: total / ((performance.now() - started) / 1000), latencies };
}

/** One side of a device publish benchmark: `clients` devices, each sending request `i` with `send(client, i)`. */
export interface Side {
  readonly clients: number;
  readonly send: (client: number, i: number) => Promise<void>;
}

/** A side's figures: its median load pass (by rate), the rates of all its passes, and one device in sequence. */
export interface SideResult {
  readonly load: LoopResult;
  readonly rates: number[];
  readonly sequential: LoopResult;
}

/**
 * Measures both sides in one run: each warms up first (`warmUp` requests, unmeasured: sessions open, V8 compiles the
 * path), then `passes` load passes of `total` requests each, fleet and baseline alternated, and each side's median
 * pass counts, so the machine's drift moves both sides alike (issue 19's "median of 3"; a baseline measured once after
 * the fleet ran 22–38k on one machine within an hour); then one device of each in sequence. With `cpu`, what the
 * fleet's last pass cost its processes is printed.
 */
export async function alternated(
  fleet: Side,
  baseline: Side,
  opts: {
    warmUp: number;
    total: number;
    sequential: number;
    passes?: number;
    cpu?: (() => (requests: number) => Promise<string>) | undefined;
  },
): Promise<{ fleet: SideResult; baseline: SideResult }> {
  const passes = opts.passes ?? 3;
  for (const side of [fleet, baseline]) await closedLoop(side.clients, opts.warmUp, side.send);
  const runs: [LoopResult[], LoopResult[]] = [[], []];
  for (let p = 0; p < passes; p++) {
    // The meter runs over the last fleet pass alone: the load generator's own CPU is then the fleet's load only.
    const used = p === passes - 1 ? opts.cpu?.() : undefined;
    runs[0].push(await closedLoop(fleet.clients, opts.total, fleet.send));
    if (used) console.log(await used(opts.total));
    runs[1].push(await closedLoop(baseline.clients, opts.total, baseline.send));
  }
  const result = async (side: Side, loads: LoopResult[]): Promise<SideResult> => ({
    load: [...loads].sort((a, b) => a.rate - b.rate)[Math.floor(loads.length / 2)]!,
    rates: loads.map((l) => l.rate),
    sequential: await closedLoop(1, opts.sequential, (_, i) => side.send(0, i)),
  });
  return { fleet: await result(fleet, runs[0]), baseline: await result(baseline, runs[1]) };
}

/**
 * Starts counting the CPU seconds (from /proc) of the named processes and this one (the load generator); the returned
 * function ends the count and says what it cost each per 10,000 of `requests`: what each hop costs per request,
 * which the other work on a shared machine changes far less than rates. With BENCH_CPU_PROF_DIR set it also names
 * the window measured, for `scripts/cpu-profile-top.ts --from= --to=` (the profiles cover the processes' whole life).
 */
export function cpuMeter(
  pids: Record<string, number | undefined>,
  metricsUrl?: string,
): (requests: number) => Promise<string> {
  signal(pids);
  const batchesBefore = metricsUrl ? uplinkBatches(metricsUrl) : undefined;
  const before = Object.entries(pids).map(([name, pid]) => ({ name, pid, from: cpuSeconds(pid) }));
  const self = process.cpuUsage();
  const start = process.hrtime.bigint() / 1000n;
  return async (requests) => {
    signal(pids);
    const per = 10_000 / requests;
    const parts = before.map(({ name, pid, from }) => {
      const now = cpuSeconds(pid);
      return `${name} ${now === undefined || from === undefined ? "?" : ((now - from) * per).toFixed(2)}`;
    });
    const used = process.cpuUsage(self);
    parts.push(`load generator ${(((used.user + used.system) / 1e6) * per).toFixed(2)}`);
    const window = process.env.BENCH_CPU_PROF_DIR
      ? ` (profile window --from=${start} --to=${process.hrtime.bigint() / 1000n})`
      : "";
    const lines = [`CPU s per 10k requests under load: ${parts.join(", ")}${window}`, await eventLoopDelays(pids)];
    if (metricsUrl && batchesBefore) {
      const [from, to] = [await batchesBefore, await uplinkBatches(metricsUrl)];
      const batches = to.count - from.count;
      lines.push(
        `uplink write batches under load: ${batches}, ${((to.rows - from.rows) / batches).toFixed(1)} rows each`,
      );
    }
    return lines.join("\n");
  };
}

/** The central node's uplink write batches so far and their rows (its /metrics). */
async function uplinkBatches(metricsUrl: string): Promise<{ count: number; rows: number }> {
  const text = await (await fetch(metricsUrl)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
  return { count: value("iot_uplink_write_batch_rows_count"), rows: value("iot_uplink_write_batch_rows_sum") };
}

/** Tells each process's event-loop probe (event-loop-probe.mjs) to start or to end its count. */
function signal(pids: Record<string, number | undefined>): void {
  for (const pid of Object.values(pids)) if (pid !== undefined) process.kill(pid, "SIGUSR2");
}

/** The event-loop delay of each process between the two signals, as its probe wrote it. */
async function eventLoopDelays(pids: Record<string, number | undefined>): Promise<string> {
  await sleep(200);
  const parts = Object.entries(pids).map(([name, pid]) => {
    const file = join(tmpdir(), `bench-event-loop-${pid}.json`);
    try {
      const d = JSON.parse(readFileSync(file, "utf8")) as { p50: number; p95: number; max: number };
      rmSync(file);
      return `${name} p50 ${d.p50} p95 ${d.p95} max ${d.max}`;
    } catch {
      return `${name} ?`;
    }
  });
  return `event-loop delay under load, ms: ${parts.join(", ")}`;
}

/**
 * The fleet for a device publish benchmark: with BENCH_CPU_PROF_DIR set, the central node and every adapter run
 * under `node --cpu-prof`, each writing its profile to that folder when it stops (the pids printed say which is
 * which); and the meter of the central node's and `adapter`'s CPU.
 */
export async function benchFleet(
  adapter: string,
): Promise<{ t: TestFleet; meter: () => (requests: number) => Promise<string> }> {
  const profileDir = process.env.BENCH_CPU_PROF_DIR;
  const probe = ["--import", pathToFileURL(join(import.meta.dirname, "event-loop-probe.mjs")).href];
  const t = await startTestFleet(
    { IOT_LOG_LEVEL: "error" },
    { nodeArgs: profileDir ? [...probe, "--cpu-prof", `--cpu-prof-dir=${profileDir}`] : probe },
  );
  const pids = {
    central: t.fleet.central.child.pid,
    adapter: t.fleet.adapters.find((a) => a.name === adapter)?.child.pid,
  };
  if (profileDir) console.log(`profiles to ${profileDir}: central pid ${pids.central}, ${adapter} pid ${pids.adapter}`);
  return { t, meter: () => cpuMeter(pids, `${reachable(t.fleet.central.urls.api!)}/metrics`) };
}

const ms = (x: number) => `${x.toFixed(2)} ms`;
const rate = (x: number) => `${Math.round(x).toLocaleString("en-US")}/s`;

/**
 * Prints the figures of the fleet beside the baseline's: load (rate, p50/p95/p99) and one client in sequence (p50),
 * the ratio of the rates, and whether the goals are met (rate ratio at least `minRatio`, p95 at most `maxP95Ms`,
 * sequential p50 at most `maxSequentialP50Ms`).
 */
export function report(
  what: string,
  fleet: SideResult,
  baseline: SideResult & { label: string },
  goals: { minRatio: number; maxP95Ms: number; maxSequentialP50Ms: number },
): void {
  const line = (label: string, r: SideResult) =>
    console.log(
      `${label.padEnd(34)} ${rate(r.load.rate).padStart(9)}  p50 ${ms(percentile(r.load.latencies, 50))}  ` +
        `p95 ${ms(percentile(r.load.latencies, 95))}  p99 ${ms(percentile(r.load.latencies, 99))}  ` +
        `one in sequence p50 ${ms(percentile(r.sequential.latencies, 50))}  ` +
        `(the median pass of ${r.rates.map(rate).join(", ")})`,
    );
  console.log(what);
  line("fleet (durable before the answer)", fleet);
  line(`baseline, ${baseline.label}`, baseline);
  const ratio = fleet.load.rate / baseline.load.rate;
  const p95 = percentile(fleet.load.latencies, 95);
  const seq = percentile(fleet.sequential.latencies, 50);
  const met = (ok: boolean) => (ok ? "met" : "NOT met");
  console.log(`ratio fleet/baseline: ${ratio.toFixed(2)} (goal >= ${goals.minRatio}: ${met(ratio >= goals.minRatio)})`);
  console.log(`fleet p95 under load: ${ms(p95)} (goal <= ${goals.maxP95Ms} ms: ${met(p95 <= goals.maxP95Ms)})`);
  console.log(
    `fleet one in sequence p50: ${ms(seq)} (goal <= ${goals.maxSequentialP50Ms} ms: ${met(seq <= goals.maxSequentialP50Ms)})`,
  );
  printResult({
    measure: `${what}: rate`,
    figure: rate(fleet.load.rate),
    baseline: `${baseline.label} ${rate(baseline.load.rate)}`,
    ratio,
    goal: `ratio ≥ ${goals.minRatio}`,
    met: ratio >= goals.minRatio,
  });
  printResult({
    measure: `${what}: p95 under load`,
    figure: ms(p95),
    baseline: "",
    ratio: null,
    goal: `≤ ${goals.maxP95Ms} ms`,
    met: p95 <= goals.maxP95Ms,
  });
  printResult({
    measure: `${what}: one in sequence p50`,
    figure: ms(seq),
    baseline: "",
    ratio: null,
    goal: `≤ ${goals.maxSequentialP50Ms} ms`,
    met: seq <= goals.maxSequentialP50Ms,
  });
}
