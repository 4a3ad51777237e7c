/**
 * Webhook delivery latency under a steady uplink load, and what webhooks cost MQTT ingest, in one run on the
 * running fleet (SQLite):
 *
 *   pnpm bench:webhooks [devices=20] [rate=1000 uplinks/s] [seconds=10]
 *
 * 1. Ingest without webhooks: every device publishes QoS 1 as fast as its send window allows (msg/s).
 * 2. The same burst with one webhook taking every uplink (an HTTP receiver in this process).
 * 3. Paced load at `rate` uplinks/s for `seconds`: each delivery's latency is its arrival at the receiver minus the
 *    PUBACK of its uplink (sent only after the uplink's durable write, so this bounds the latency from the write).
 *    Prints p50/p99/max.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import mqtt, { type MqttClient } from "mqtt";
import { startTestFleet } from "../test/helpers.js";
import { printResult } from "./result.js";
import { positiveInt } from "./figures.js";

const devices = positiveInt(process.argv[2], 20);
const rate = positiveInt(process.argv[3], 1000);
const seconds = positiveInt(process.argv[4], 10);
/** Messages per device in each burst (phases 1 and 2). */
const BURST = 500;
/** Unacknowledged publishes per device in the bursts. */
const WINDOW = 32;

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

async function connectDevices(productID: string, prefix: string): Promise<MqttClient[]> {
  const clients: MqttClient[] = [];
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
    clients.push(
      await mqtt.connectAsync(t.mqttUrl, {
        clientId: d.deviceID,
        username: d.deviceUsername,
        password: d.token,
        protocolVersion: 4,
        reconnectPeriod: 0,
      }),
    );
  }
  return clients;
}

/** Every client publishes BURST QoS 1 messages, WINDOW in flight; answers msg/s. */
async function burst(clients: MqttClient[]): Promise<number> {
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      let next = 0;
      const lane = async () => {
        while (next++ < BURST) await client.publishAsync("telemetry", JSON.stringify({ n: ++seq }), { qos: 1 });
      };
      await Promise.all(Array.from({ length: WINDOW }, lane));
    }),
  );
  return (clients.length * BURST) / ((performance.now() - started) / 1000);
}

try {
  const productID = (await t.api("POST", "/products", { productName: "bench webhooks", cloudProtocol: 1 })).body
    .productID as string;
  const clients = await connectDevices(productID, "wh");
  await burst(clients); // warm-up: connections, prepared statements, JIT
  const without = await burst(clients);
  const hook = await t.api("POST", "/webhooks", {
    webhookName: "bench",
    url: receiverUrl,
    eventTypes: ["uplink"],
    secret: "bench-secret-0123456789",
  });
  if (hook.status !== 201) throw new Error(`webhook not created: ${JSON.stringify(hook.body)}`);
  const withHook = await burst(clients);
  // Let the burst's deliveries drain before the paced phase.
  while (arrived.size < clients.length * BURST) await sleep(50);

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
  const deadline = performance.now() + 30_000;
  while ([...acked.keys()].some((n) => !arrived.has(n)) && performance.now() < deadline) await sleep(50);
  const latencies = [...acked].map(([n, at]) => (arrived.get(n) ?? Infinity) - at).sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
  const missing = latencies.filter((l) => l === Infinity).length;
  await Promise.all(clients.map((c) => c.endAsync()));

  const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
  console.log(`${devices} devices; bursts of ${BURST} QoS 1 publishes per device (${WINDOW} in flight)`);
  console.log(`MQTT ingest without webhooks: ${fmt(without)} msg/s`);
  console.log(`MQTT ingest with a webhook taking every uplink: ${fmt(withHook)} msg/s`);
  console.log(`ingest change: ${(((withHook - without) / without) * 100).toFixed(1)}%`);
  console.log(`paced: ${fmt(offered)} uplinks/s for ${seconds} s (${total} uplinks, from #${first})`);
  console.log(
    `webhook delivery after the uplink's PUBACK (its durable write): p50 ${pct(50).toFixed(0)} ms, ` +
      `p99 ${pct(99).toFixed(0)} ms, max ${pct(100).toFixed(0)} ms${missing > 0 ? `, ${missing} not delivered in 30 s` : ""}`,
  );
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
    figure: `${pct(99).toFixed(0)} ms`,
    baseline: "",
    ratio: null,
    goal: "all delivered",
    met: missing === 0,
  });
} finally {
  await t.close();
  receiver.close();
}
