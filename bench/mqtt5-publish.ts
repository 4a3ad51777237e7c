/**
 * MQTT 5.0 uplink throughput beside MQTT 3.1.1's, end to end on one running fleet (adapter → gRPC → registry →
 * SQLite, PUBACK only after the durable write): issue 44's goal is MQTT 5.0 QoS 1 ingest within 10 % of 3.1.1's.
 *
 *   pnpm bench:mqtt5 [devices per side=20] [messages per device=2000] [warm-up per device]
 *
 * Three sides of `devices` devices each, all connected throughout: MQTT 3.1.1 (the baseline), MQTT 5.0 publishing
 * as 3.1.1 does, and MQTT 5.0 the way a v5 device tends to publish (topic aliases, which MQTT.js assigns within the
 * CONNACK's Topic Alias Maximum, a content type, a payload format indicator and a user property on every message).
 * Each side first runs the load unmeasured (the warm-up, as in bench:mqtt), then three measured passes of every side,
 * the sides' order rotating from pass to pass, and each side's median counts: the machine's drift and the growing
 * database then move all sides alike. The load is bench:mqtt's (mqtt-load.ts: 32 publishes in flight per device).
 * The CPU seconds the MQTT adapter, the central node and the load generator (MQTT.js, in this process, on the same
 * cores) spend per 100,000 messages of each side say where a gap comes from, whatever else the machine runs.
 */
import type { IClientOptions, MqttClient } from "mqtt";
import { startTestFleet } from "../test/helpers.js";
import { cpuSeconds, percentile, positiveInt } from "./figures.js";
import { connectNewDevices, measure, TELEMETRY, WINDOW, type PublishProperties } from "./mqtt-load.js";
import { printResult } from "./result.js";

const devices = positiveInt(process.argv[2], 20);
const perDevice = positiveInt(process.argv[3], 2000);
const warmUpPerDevice = positiveInt(process.argv[4], perDevice);

/** Measured passes of each side. */
const PASSES = 3;

/** What a v5 device adds to each message. */
const V5_PROPERTIES: PublishProperties = {
  contentType: "application/json",
  payloadFormatIndicator: true,
  userProperties: { firmware: "1.4.2" },
};

/** One side: its devices, how they publish, and what its measured passes gave. */
interface Side {
  readonly label: string;
  readonly clients: MqttClient[];
  readonly properties?: PublishProperties;
  readonly rates: number[];
  readonly cpu: { adapter: number; central: number; generator: number };
}

const t = await startTestFleet({ IOT_LOG_LEVEL: "error" });
const pids = {
  adapter: t.fleet.adapters.find((a) => a.name === "mqtt-adapter")?.child.pid,
  central: t.fleet.central.child.pid,
};

/** Creates `devices` devices of the product and connects them with `options` (3.1.1 unless they say otherwise). */
const sideDevices = async (productID: string, prefix: string, options: IClientOptions): Promise<MqttClient[]> =>
  (await connectNewDevices(t, productID, prefix, devices, options)).map((d) => d.client);

/** One measured pass of a side, with the CPU it cost the adapter, the central node and the load generator (MQTT.js). */
async function pass(side: Side): Promise<void> {
  const [adapter, central] = [cpuSeconds(pids.adapter), cpuSeconds(pids.central)];
  const self = process.cpuUsage();
  side.rates.push(await measure(side.clients, perDevice, side.properties));
  const { user, system } = process.cpuUsage(self);
  side.cpu.generator += (user + system) / 1e6;
  // NaN (printed as "?") when /proc cannot tell.
  side.cpu.adapter += (cpuSeconds(pids.adapter) ?? NaN) - (adapter ?? NaN);
  side.cpu.central += (cpuSeconds(pids.central) ?? NaN) - (central ?? NaN);
}

async function run(): Promise<void> {
  const productID = (await t.api("POST", "/products", { productName: "bench-mqtt5", cloudProtocol: 1 })).body.productID;
  const side = (label: string, clients: MqttClient[], properties?: PublishProperties): Side => ({
    label,
    clients,
    ...(properties ? { properties } : {}),
    rates: [],
    cpu: { adapter: 0, central: 0, generator: 0 },
  });
  const v311 = side("MQTT 3.1.1", await sideDevices(productID, "v311", {}));
  const v5 = side("MQTT 5.0", await sideDevices(productID, "v5", { protocolVersion: 5 }));
  const v5props = side(
    "MQTT 5.0, topic alias and properties",
    await sideDevices(productID, "v5p", { protocolVersion: 5, autoAssignTopicAlias: true }),
    V5_PROPERTIES,
  );
  const sides = [v311, v5, v5props];
  const warmUps: number[] = [];
  for (const s of sides) warmUps.push(await measure(s.clients, warmUpPerDevice, s.properties));
  for (let p = 0; p < PASSES; p++) for (let i = 0; i < sides.length; i++) await pass(sides[(p + i) % sides.length]!);
  for (const s of sides) if (s.clients.some((c) => !c.connected)) throw new Error(`${s.label}: a device was dropped`);
  await Promise.all(sides.flatMap((s) => s.clients.map((c) => c.endAsync())));

  const median = (s: Side) => percentile(s.rates, 50);
  const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
  const per100k = (seconds: number) =>
    Number.isFinite(seconds) ? ((seconds * 100_000) / (PASSES * devices * perDevice)).toFixed(2) : "?";
  console.log(
    `${devices} devices per side x ${perDevice} QoS 1 publishes (${TELEMETRY.length}-byte payload, ${WINDOW} in ` +
      `flight per device), after a warm-up of ${warmUpPerDevice} per device ` +
      `(${sides.map((s, i) => `${s.label} ${fmt(warmUps[i]!)}`).join(", ")} msg/s)`,
  );
  for (const s of sides)
    console.log(
      `${s.label.padEnd(38)} ${fmt(median(s)).padStart(7)} msg/s, the median of ${s.rates.map(fmt).join(", ")}; ` +
        `CPU s per 100k messages: adapter ${per100k(s.cpu.adapter)}, central ${per100k(s.cpu.central)}, ` +
        `load generator ${per100k(s.cpu.generator)}`,
    );
  for (const s of [v5, v5props]) {
    const ratio = median(s) / median(v311);
    console.log(
      `ratio ${s.label} / MQTT 3.1.1: ${ratio.toFixed(2)} (goal >= 0.9: ${ratio >= 0.9 ? "met" : "NOT met"})`,
    );
    printResult({
      measure: `${s.label} QoS 1 ingest, ${devices} devices (durable before PUBACK)`,
      figure: `${Math.round(median(s))} msg/s`,
      baseline: `MQTT 3.1.1 ${Math.round(median(v311))} msg/s`,
      ratio,
      goal: "≥ 90% of MQTT 3.1.1",
      met: ratio >= 0.9,
    });
  }
}

try {
  await run();
} finally {
  await t.close();
}
