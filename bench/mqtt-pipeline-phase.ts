/**
 * bench:mqtt's data pipeline phase: the same load on devices of a product with streams, timed until the central
 * node's pipeline has gone through every message (not until the last PUBACK), then the devices with and without a
 * data model each paced at 80 % of that rate, so that the PUBACK tail with a data model stands beside the plain one.
 */
import type { MqttClient } from "mqtt";
import type { TestFleet } from "../test/helpers.js";
import { cpuSeconds, monotonicUs, percentile } from "./figures.js";
import { measure } from "./mqtt-load.js";
import { paced, pacedNote, type PacedPass } from "./mqtt-paced.js";
import { printResult } from "./result.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The fleet of one bench:mqtt run and its load: the phases share them. */
export interface MqttBenchRun {
  readonly t: TestFleet;
  /** Devices publishing at once. */
  readonly devices: number;
  /** Messages per device in a measured pass. */
  readonly perDevice: number;
  /** Messages per device in a warm-up. */
  readonly warmUpPerDevice: number;
  /** Connects `devices` new devices of the product to the fleet. */
  fleetDevices(productID: string, prefix: string): Promise<{ deviceID: string; client: MqttClient }[]>;
}

/**
 * A product whose JSON stream on `telemetry/#` has the payload's four numeric points, limits on temperature (so
 * every message is checked) and a formula metric: each uplink becomes four values, a metric value and a rule check.
 */
async function pipelineProduct({ t }: MqttBenchRun): Promise<string> {
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
async function pipelineUplinks({ t }: MqttBenchRun): Promise<number> {
  const text = await (await fetch(`${t.apiUrl.replace(/\/api\/v1$/, "")}/metrics`)).text();
  const line = /^iot_pipeline_uplinks_total (\d+)/m.exec(text);
  if (!line) throw new Error("the central node's /metrics has no iot_pipeline_uplinks_total");
  return Number(line[1]);
}

/**
 * The same load on a product with streams, after a warm-up on devices of their own: messages per second from the
 * first PUBLISH until the pipeline has gone through the last of them (its values stored), not until the last PUBACK.
 */
export async function pipelinePass(run: MqttBenchRun, plain: MqttClient[]): Promise<PipelinePhase> {
  const { t, devices, perDevice, warmUpPerDevice } = run;
  const pipedProduct = await pipelineProduct(run);
  const warmed = await run.fleetDevices(pipedProduct, "piped-warm-up");
  await measure(
    warmed.map((d) => d.client),
    warmUpPerDevice,
  );
  await Promise.all(warmed.map((d) => d.client.endAsync()));
  const expected = (await pipelineUplinksAfter(run, devices * warmUpPerDevice)) + devices * perDevice;
  const piped = await run.fleetDevices(pipedProduct, "piped");
  const from = monotonicUs();
  const started = performance.now();
  const centralCpu = cpuSeconds(t.fleet.central.child.pid) ?? NaN;
  await measure(
    piped.map((d) => d.client),
    perDevice,
  );
  await pipelineUplinksAfter(run, expected);
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
export interface PipelinePhase {
  rate: number;
  window: string;
  centralCpuPer100k: number;
  pacedRate: number;
  without: PacedPass;
  withModel: PacedPass;
}

/** Longest the pipeline may go through no uplink while the benchmark waits for it, ms: past it the run fails. */
const PIPELINE_STALL_MS = 60_000;

/**
 * Waits until the pipeline has gone through at least `count` uplinks since the fleet started; says how many. Throws
 * when it goes through none for PIPELINE_STALL_MS (a failing pipeline would otherwise hang the run).
 */
async function pipelineUplinksAfter(run: MqttBenchRun, count: number): Promise<number> {
  let last = -1;
  let movedAt = performance.now();
  for (;;) {
    const seen = await pipelineUplinks(run);
    if (seen >= count) return seen;
    if (seen !== last) [last, movedAt] = [seen, performance.now()];
    else if (performance.now() - movedAt > PIPELINE_STALL_MS)
      throw new Error(`the data pipeline stalled at ${seen} of ${count} uplinks (its log says why)`);
    await sleep(20);
  }
}

/** The paced passes of the pipeline's phase: a line each, and the data model's p99 beside the plain one. */
export function printPipelinePaced(piped: PipelinePhase): void {
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
