/**
 * Webhook delivery latency under a steady uplink load, and what webhooks cost MQTT ingest, in one run on the
 * running fleet (SQLite):
 *
 *   pnpm bench:webhooks [devices=20] [rate=1000 uplinks/s] [seconds=10]
 *
 * 1. Ingest without webhooks: every device publishes QoS 1 as fast as its send window allows (msg/s).
 * 2. The issue's case, "at 1,000 uplinks/s … with the MQTT ingest rate unchanged": the same full-rate burst while
 *    SIDE_DEVICES more devices publish `rate` uplinks/s between them (a side load, paced), first with no webhook,
 *    then with a webhook (filtered to those devices) carrying their `rate` uplinks/s. Each is run SIDE_RUNS times,
 *    alternating, and each side's median burst counts; the side load starts SIDE_LEAD_MS before its burst. The side
 *    load's delivery latency in the webhook runs is printed too.
 * 3. The same burst with one webhook taking every uplink (so carrying the full ingest rate, far above `rate`).
 * 4. Paced load at `rate` uplinks/s for `seconds`: each delivery's latency is its arrival at the receiver minus the
 *    PUBACK of its uplink (sent only after the uplink's durable write, so this bounds the latency from the write).
 *    Prints p50/p99/max.
 * The HTTP receiver runs in this process (sharing the machine with everything else, as a receiver would not).
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { MqttClient } from "mqtt";
import { startTestFleet } from "../test/helpers.js";
import { connectNewDevices } from "./mqtt-load.js";
import { printResult } from "./result.js";
import { positiveInt } from "./figures.js";

const devices = positiveInt(process.argv[2], 20);
const rate = positiveInt(process.argv[3], 1000);
const seconds = positiveInt(process.argv[4], 10);
/** Messages per device in each burst of phases 1 and 3. */
const BURST = 500;
/**
 * Messages per device in each burst of phase 2, the one with a goal: about a second at full rate on this machine. At
 * BURST a burst lasted 0.2–0.3 s, and the two runs of each side gave -4 % to -24 % from one run of the benchmark to
 * the next.
 */
const SIDE_BURST = 2500;
/** Runs of each side in phase 2, alternated; each side's median counts. */
const SIDE_RUNS = 3;
/**
 * How long the side load (and its webhook) runs before each burst of phase 2 starts, ms: the burst measures a webhook
 * already delivering, not its first pass (its lease, its first page) inside a window of a second.
 */
const SIDE_LEAD_MS = 500;
/** Unacknowledged publishes per device in the bursts. */
const WINDOW = 32;
/**
 * Devices of the side load (phase 2), `rate / SIDE_DEVICES` uplinks/s each. A device's deliveries go one after
 * another (order), so one device's rate is bounded by the receiver's round trip: 10 keep it at 100/s each.
 */
const SIDE_DEVICES = 10;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Uplink number → when its delivery arrived (performance.now()). */
const arrived = new Map<number, number>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const at = performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { event: { data: { payload: string } } };
    const n = (JSON.parse(Buffer.from(body.event.data.payload, "base64").toString("utf8")) as { n: number }).n;
    if (!arrived.has(n)) arrived.set(n, at);
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const t = await startTestFleet({ IOT_LOG_LEVEL: "error", IOT_WEBHOOK_ALLOW_PRIVATE: "true" });
let seq = 0;

/** Creates `count` devices of the product and connects each (MQTT 3.1.1). */
const connectDevices = async (productID: string, prefix: string, count = devices): Promise<MqttClient[]> =>
  (await connectNewDevices(t, productID, prefix, count)).map((d) => d.client);

/**
 * CPU time (ms, user + system) used so far by the central node, the adapters and this process (load generator and
 * receiver): a load-independent view of what webhooks cost, beside the msg/s a busy machine makes noisy. Linux only
 * (/proc); elsewhere undefined.
 */
function cpuNow(): { central: number; adapters: number; bench: number } | undefined {
  const ticks = (pid: number | undefined) => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in 1/100 s
  };
  try {
    const own = process.cpuUsage();
    return {
      central: ticks(t.fleet.central.child.pid),
      adapters: t.fleet.adapters.reduce((sum, a) => sum + ticks(a.child.pid), 0),
      bench: (own.user + own.system) / 1000,
    };
  } catch {
    return undefined;
  }
}

/** CPU time used from `before` until now per uplink (of `uplinks`), in µs for each process, as text. */
function cpuPerUplink(before: ReturnType<typeof cpuNow>, uplinks: number): string {
  const after = cpuNow();
  if (!before || !after) return "";
  const per = (k: keyof typeof before) => Math.round(((after[k] - before[k]) * 1000) / uplinks);
  return `CPU per uplink: central ${per("central")} µs, adapters ${per("adapters")} µs, bench ${per("bench")} µs`;
}

/** Every client publishes `perDevice` QoS 1 messages, WINDOW in flight; answers msg/s. */
async function burst(clients: MqttClient[], perDevice = BURST): Promise<number> {
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      let next = 0;
      const lane = async () => {
        while (next++ < perDevice) await client.publishAsync("telemetry", JSON.stringify({ n: ++seq }), { qos: 1 });
      };
      await Promise.all(Array.from({ length: WINDOW }, lane));
    }),
  );
  return (clients.length * perDevice) / ((performance.now() - started) / 1000);
}

/**
 * Publishes `rate` uplinks/s from `clients` in turn until `stop` resolves; records each PUBACK time in `acked`.
 * Resolves once every publish is acknowledged.
 */
async function paced(clients: MqttClient[], stop: Promise<unknown>, acked: Map<number, number>): Promise<void> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  const started = performance.now();
  const sends: Promise<void>[] = [];
  for (let i = 0; !stopped; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 1) await sleep(wait);
    const n = ++seq;
    sends.push(
      clients[i % clients.length]!.publishAsync("telemetry", JSON.stringify({ n }), { qos: 1 }).then(
        () => void acked.set(n, performance.now()),
      ),
    );
  }
  await Promise.all(sends);
}

/** The burst's msg/s while `side` publishes `rate` uplinks/s from SIDE_LEAD_MS before it (acks in `acked`). */
async function burstWithSideLoad(clients: MqttClient[], side: MqttClient[], acked: Map<number, number>) {
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const sideLoad = paced(side, stopped, acked);
  await sleep(SIDE_LEAD_MS);
  const rateOfBurst = await burst(clients, SIDE_BURST);
  stop();
  await sideLoad;
  return rateOfBurst;
}

/** Waits up to 30 s for the deliveries of `acked`; answers their latencies after the PUBACK, sorted (∞: none). */
async function latencies(acked: Map<number, number>): Promise<number[]> {
  const deadline = performance.now() + 30_000;
  while ([...acked.keys()].some((n) => !arrived.has(n)) && performance.now() < deadline) await sleep(50);
  return [...acked].map(([n, at]) => (arrived.get(n) ?? Infinity) - at).sort((a, b) => a - b);
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

try {
  const productID = (await t.api("POST", "/products", { productName: "bench webhooks", cloudProtocol: 1 })).body
    .productID as string;
  const clients = await connectDevices(productID, "wh");
  const side = await connectDevices(productID, "side", SIDE_DEVICES);
  await burst(clients); // warm-up: connections, prepared statements, JIT
  let cpu = cpuNow();
  const without = await burst(clients);
  const cpuWithout = cpuPerUplink(cpu, clients.length * BURST);

  // The issue's case: a webhook carrying `rate` uplinks/s while the fleet ingests at full rate. A webhook of its own
  // for each run with it (a re-enabled one would first catch up on the events of the runs without it).
  const sideRates = { without: [] as number[], with: [] as number[] };
  const sideLatencies: number[] = [];
  const sideCpu = { without: "", with: "" };
  // Runs -2 and -1 are a warm-up pair, not counted: the first run with a webhook was the slowest of its side in every
  // run of the benchmark (its delivery path's first traffic).
  for (let run = -2; run < 2 * SIDE_RUNS; run++) {
    const withHook = run % 2 !== 0;
    const counted = run >= 0;
    const acked = new Map<number, number>();
    cpu = cpuNow();
    if (!withHook) {
      const r = await burstWithSideLoad(clients, side, acked);
      if (!counted) continue;
      sideRates.without.push(r);
      sideCpu.without = cpuPerUplink(cpu, clients.length * SIDE_BURST + acked.size);
      continue;
    }
    const created = await t.api("POST", "/webhooks", {
      webhookName: "bench side load",
      url: receiverUrl,
      eventTypes: ["uplink"],
      deviceIDs: side.map((c) => c.options.clientId),
      secret: "bench-secret-0123456789",
    });
    if (created.status !== 201) throw new Error(`webhook not created: ${JSON.stringify(created.body)}`);
    const r = await burstWithSideLoad(clients, side, acked);
    const delivered = await latencies(acked);
    if (counted) {
      sideRates.with.push(r);
      sideLatencies.push(...delivered);
    }
    // Until its deliveries arrived: what they cost is counted even when they end after the burst.
    sideCpu.with = cpuPerUplink(cpu, clients.length * SIDE_BURST + acked.size);
    await t.api("DELETE", `/webhooks?ids=${created.body.id}`);
  }
  sideLatencies.sort((a, b) => a - b);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const sideWithout = median(sideRates.without);
  const sideWith = median(sideRates.with);

  const hook = await t.api("POST", "/webhooks", {
    webhookName: "bench",
    url: receiverUrl,
    eventTypes: ["uplink"],
    secret: "bench-secret-0123456789",
  });
  if (hook.status !== 201) throw new Error(`webhook not created: ${JSON.stringify(hook.body)}`);
  cpu = cpuNow();
  const withHook = await burst(clients);
  // Let the burst's deliveries drain before the paced phase.
  const burstFirst = seq - clients.length * BURST + 1;
  for (let n = burstFirst; n <= seq; n++) while (!arrived.has(n)) await sleep(50);
  const cpuWithHook = cpuPerUplink(cpu, clients.length * BURST);

  const acked = new Map<number, number>();
  const total = rate * seconds;
  const first = seq + 1;
  const started = performance.now();
  const sends: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const n = ++seq;
    const client = clients[i % clients.length]!;
    sends.push(
      client
        .publishAsync("telemetry", JSON.stringify({ n }), { qos: 1 })
        .then(() => void acked.set(n, performance.now())),
    );
  }
  await Promise.all(sends);
  const offered = total / ((performance.now() - started) / 1000);
  const sorted = await latencies(acked);
  const missing = sorted.filter((l) => l === Infinity).length;
  const sideMissing = sideLatencies.filter((l) => l === Infinity).length;
  await Promise.all([...clients, ...side].map((c) => c.endAsync()));

  const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
  const sideChange = ((sideWith - sideWithout) / sideWithout) * 100;
  console.log(`${devices} devices; bursts of ${BURST} QoS 1 publishes per device (${WINDOW} in flight)`);
  console.log(`MQTT ingest without webhooks: ${fmt(without)} msg/s; ${cpuWithout}`);
  console.log(
    `MQTT ingest while ${SIDE_DEVICES} more devices publish ${rate} uplinks/s: without a webhook ${fmt(sideWithout)} msg/s, ` +
      `with a webhook carrying those ${rate} uplinks/s ${fmt(sideWith)} msg/s (the median of ${SIDE_RUNS} runs each; ` +
      `${sideRates.without.map(fmt).join(", ")} / ${sideRates.with.map(fmt).join(", ")})`,
  );
  console.log(`  ${sideCpu.without} (without) / ${sideCpu.with} (with, until delivered)`);
  console.log(`ingest change with a webhook carrying ${rate} uplinks/s: ${sideChange.toFixed(1)}%`);
  console.log(
    `  its deliveries after PUBACK, under full-rate ingest: p50 ${pct(sideLatencies, 50).toFixed(0)} ms, ` +
      `p99 ${pct(sideLatencies, 99).toFixed(0)} ms${sideMissing > 0 ? `, ${sideMissing} not delivered in 30 s` : ""}`,
  );
  console.log(
    `MQTT ingest with a webhook taking every uplink: ${fmt(withHook)} msg/s; ${cpuWithHook} (until delivered)`,
  );
  console.log(
    `ingest change with a webhook taking every uplink: ${(((withHook - without) / without) * 100).toFixed(1)}%`,
  );
  console.log(`paced: ${fmt(offered)} uplinks/s for ${seconds} s (${total} uplinks, from #${first})`);
  console.log(
    `webhook delivery after the uplink's PUBACK (its durable write): p50 ${pct(sorted, 50).toFixed(0)} ms, ` +
      `p99 ${pct(sorted, 99).toFixed(0)} ms, max ${pct(sorted, 100).toFixed(0)} ms${missing > 0 ? `, ${missing} not delivered in 30 s` : ""}`,
  );
  printResult({
    measure: `MQTT ingest (${devices} devices at full rate) with a webhook carrying ${rate} uplinks/s of ${SIDE_DEVICES} more devices`,
    figure: `${Math.round(sideWith)} msg/s`,
    baseline: `same load, no webhook ${Math.round(sideWithout)} msg/s`,
    ratio: sideWith / sideWithout,
    goal: "within 10%",
    met: sideWith >= 0.9 * sideWithout,
  });
  printResult({
    measure: `webhook delivery after PUBACK p99 at ${rate} uplinks/s under full-rate ingest`,
    figure: `${pct(sideLatencies, 99).toFixed(0)} ms`,
    baseline: "",
    ratio: null,
    goal: "≤ 1000 ms, all delivered",
    met: sideMissing === 0 && pct(sideLatencies, 99) <= 1000,
  });
  printResult({
    measure: `MQTT ingest with a webhook taking every uplink, ${devices} devices`,
    figure: `${Math.round(withHook)} msg/s`,
    baseline: `without webhooks ${Math.round(without)} msg/s`,
    ratio: withHook / without,
    goal: "",
    met: null,
  });
  printResult({
    measure: `webhook delivery after PUBACK p99 at ${Math.round(offered)} uplinks/s`,
    figure: `${pct(sorted, 99).toFixed(0)} ms`,
    baseline: "",
    ratio: null,
    goal: "≤ 1000 ms, all delivered",
    met: missing === 0 && pct(sorted, 99) <= 1000,
  });
} finally {
  await t.close();
  receiver.close();
}
