/**
 * MQTT uplink throughput end to end: devices publish QoS 1 to the running
 * fleet (adapter → gRPC → registry → SQLite, PUBACK only after the durable
 * write), against the same load on a plain broker that stores nothing and
 * authenticates nobody, measured in the same run on the same machine.
 *
 *   pnpm bench:mqtt [devices=20] [messages per device=500] [baseline=mqtt://127.0.0.1:1883]
 *
 * The baseline is the machine's Mosquitto when one answers at the given
 * address, else a bare aedes broker in this process. The ratio says what
 * authentication, policies, the registry hop and durable storage cost.
 */
import { createServer, type Server } from "node:net";
import { Aedes } from "aedes";
import mqtt, { type MqttClient } from "mqtt";
import { startTestFleet } from "../test/helpers.js";

const devices = positiveInt(process.argv[2], 20);
const perDevice = positiveInt(process.argv[3], 500);
const baselineUrl = process.argv[4] ?? "mqtt://127.0.0.1:1883";
const payload = Buffer.from(JSON.stringify({ temperature: 21.5, humidity: 40, battery: 97 }));

function positiveInt(arg: string | undefined, fallback: number): number {
  if (arg === undefined) return fallback;
  const n = Number(arg);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`expected a positive integer, got ${arg}`);
  return n;
}

/** How many unacknowledged publishes each device keeps in flight, like a device with a send window. */
const WINDOW = 32;

/** One device publishing `perDevice` QoS 1 messages, at most WINDOW unacknowledged at a time. */
async function publishAll(client: MqttClient): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < perDevice) {
      const i = next++;
      await client.publishAsync(`telemetry/${i % 10}`, payload, { qos: 1 });
    }
  };
  await Promise.all(Array.from({ length: WINDOW }, lane));
}

/** Messages per second for every client publishing at once. */
async function measure(clients: MqttClient[]): Promise<number> {
  const started = performance.now();
  await Promise.all(clients.map(publishAll));
  return (clients.length * perDevice) / ((performance.now() - started) / 1000);
}

const connect = (url: string, opts: mqtt.IClientOptions = {}) =>
  mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000, ...opts });

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

const t = await startTestFleet({ IOT_LOG_LEVEL: "error" });
try {
  const productID = (await t.api("POST", "/products", { productName: "bench", cloudProtocol: 1 })).body.productID;
  const ours: MqttClient[] = [];
  for (let i = 0; i < devices; i++) {
    const d = (
      await t.api("POST", "/devices", {
        productID,
        deviceName: `bench-${i}`,
        deviceType: 1,
        upLinkSystem: 1,
        authType: 1,
      })
    ).body;
    ours.push(await connect(t.mqttUrl, { clientId: d.deviceID, username: d.deviceUsername, password: d.token }));
  }
  const fleetRate = await measure(ours);
  await Promise.all(ours.map((c) => c.endAsync()));
  const stored = (await t.api("GET", "/device_events?_limit=1")).body.meta?.count;

  const base = await baselineBroker();
  const theirs = await Promise.all(
    Array.from({ length: devices }, (_, i) => connect(base.url, { clientId: `bench-baseline-${i}` })),
  );
  const baseRate = await measure(theirs);
  await Promise.all(theirs.map((c) => c.endAsync()));
  await base.close();

  const fmt = (x: number) => Math.round(x).toLocaleString("en-US").padStart(9);
  console.log(
    `${devices} devices x ${perDevice} QoS 1 publishes (${payload.length}-byte payload, ${WINDOW} in flight per device)`,
  );
  console.log(
    `fleet (SQLite, durable before PUBACK): ${fmt(fleetRate)} msg/s${stored !== undefined ? ` (${stored} events stored)` : ""}`,
  );
  console.log(`baseline, ${base.label}: ${fmt(baseRate)} msg/s (stores nothing)`);
  console.log(`ratio fleet/baseline: ${(fleetRate / baseRate).toFixed(2)}`);
} finally {
  await t.close();
}
