/**
 * LwM2M firmware push: the LwM2M server (createLwm2mServer on the CoAP message layer over UDP, its registry the
 * in-process FakeRegistryClient, so the figures are the adapter's and not the central node's) updating N simulated
 * devices at once by push — `firmware-update` commands: State and Update Result observed, the package written to
 * /5/0/0 block-wise (1024-byte Block1), Update executed, the device re-registering with the new /3/0/3 read back —
 * against a bare block-wise transfer in the same run: the same message layers and sockets, N clients each PUTting
 * the same package to a handler that answers 2.04 at once.
 *
 *   pnpm bench:lwm2m-firmware [devices=100] [kib=256]
 *
 * Every device must end updated (its command DELIVERED, /3/0/3 the new version). The block throughput is the
 * blocks of all packages over the time from the first command to the last outcome (the whole update, not only the
 * transfer); the memory figure is this process's heap and buffers over their idle figure at the peak, sampled every
 * 50 ms: the LwM2M server's, with its fake registry and the commands it was handed (one `firmware-update` command
 * per device, each with its own copy of the package in base64, as each arrives from the central node). The simulated
 * devices run in a child process (bench/lwm2m-firmware-devices.ts), so their reassembled packages are not counted.
 */
import { fork } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { createMessageLayer, listenUdp, type CoapHandler, type UdpListener } from "@iot/adapter-coap";
import { FakeRegistryClient, type FakeDevice } from "@iot/adapter-core";
import { createLwm2mServer, simulatedPackage } from "@iot/adapter-lwm2m";
import { positiveInt } from "./figures.js";
import { printResult } from "./result.js";

const devices = positiveInt(process.argv[2], 100);
const kib = positiveInt(process.argv[3], 256);
const BLOCK = 1024;
const blocksEach = Math.ceil((kib * 1024) / BLOCK);
const logger = pino({ level: "silent" });
const imei = (i: number) => String(353_000_000_000_000 + i);

const gc = () => (globalThis as { gc?: () => void }).gc?.();
const memory = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

/** A message layer on its own UDP socket on 127.0.0.1. */
async function endpoint(handler: CoapHandler, maxBodyBytes: number) {
  let udp: UdpListener | undefined;
  // Every device's upload is reassembled at once on the bare side (the layer's default is 64 at a time).
  const layer = createMessageLayer(handler, {
    logger,
    maxBodyBytes,
    maxTransfers: Math.max(64, devices),
    send: (d, p) => udp?.send(d, p),
  });
  udp = await listenUdp(layer, { port: 0, host: "127.0.0.1", onError: () => {}, receiveBufferBytes: 4 * 1024 * 1024 });
  return { layer, port: udp.port, close: async () => (layer.close(), await udp.close()) };
}

/** Samples the peak of `memory()` until stopped. */
function peakSampler() {
  let peak = memory();
  const timer = setInterval(() => (peak = Math.max(peak, memory())), 50);
  return () => (clearInterval(timer), Math.max(peak, memory()));
}

/** Samples the peak of what is live (`memory()` right after a full GC) every 500 ms until stopped. */
function liveSampler() {
  let peak = 0;
  const timer = setInterval(() => (gc(), (peak = Math.max(peak, memory()))), 500);
  return () => (clearInterval(timer), peak);
}

const pkg = simulatedPackage("2.0.0", kib * 1024);
const maxBody = pkg.length + 4096;

// Baseline: N clients PUT the package block-wise to a bare handler, all at once.
const bare = await endpoint(async () => ({ code: "2.04" }), maxBody);
const clients = await Promise.all(
  Array.from({ length: devices }, () => endpoint(async () => ({ code: "4.04" }), maxBody)),
);
let started = performance.now();
const answers = await Promise.all(
  clients.map((c) =>
    c.layer.request({ address: "127.0.0.1", port: bare.port }, { method: "PUT", path: "fw", payload: pkg }),
  ),
);
const bareSeconds = (performance.now() - started) / 1000;
const bareOk = answers.filter((a) => a.code === "2.04").length;
const bareRate = (devices * blocksEach) / bareSeconds;
console.log(
  `bare block-wise  ${devices} × ${kib} KiB PUT in ${bareSeconds.toFixed(2)} s: ${bareRate.toFixed(0)} blocks/s, ${bareOk} answered 2.04`,
);
await Promise.all([bare, ...clients].map((e) => e.close()));

// The LwM2M server pushing the firmware to N simulated devices.
const fleet: FakeDevice[] = Array.from({ length: devices }, (_, i) => ({
  deviceIntId: i + 1,
  deviceId: `fw-${i}`,
  username: `fw-${i}`,
  token: "unused",
  imei: imei(i),
}));
const registry = new FakeRegistryClient({ devices: fleet });
registry.start();
const server = createLwm2mServer({ registry, logger, policyDefault: "allow", queueAwakeSeconds: 93 });
const lwm2m = await endpoint((r) => server.handler(r), maxBody);
server.attach(lwm2m.layer);
// The devices in a process of their own: registered before the idle figure is taken.
const child = fork(
  fileURLToPath(new URL("./lwm2m-firmware-devices.ts", import.meta.url)),
  [String(lwm2m.port), String(devices), String(maxBody)],
  { execArgv: ["--import", "tsx"] },
);
const fromDevices = <T>(key: string) =>
  new Promise<T>((resolve, reject) => {
    const take = (m: Record<string, unknown>) => {
      if (!(key in m)) return;
      child.off("message", take);
      resolve(m[key] as T);
    };
    child.on("message", take);
    child.once("exit", (code) => reject(new Error(`the device process exited (${code})`)));
  });
await fromDevices<true>("registered");
await new Promise((r) => setTimeout(r, 100));
gc();
const idle = memory();
const stopSampling = peakSampler();
const stopLive = liveSampler();
const command = JSON.stringify({
  reqID: "bench",
  msgType: "firmware-update",
  data: {
    method: "push",
    version: "2.0.0",
    sha256: createHash("sha256").update(pkg).digest("hex"),
    package: pkg.toString("base64"),
  },
});
started = performance.now();
// Each device's command is its own message, as gRPC hands the adapter one Downlink per device.
const outcomes = await Promise.all(
  fleet.map((d) => registry.pushDownlink({ deviceIntId: d.deviceIntId, payload: Buffer.from(command) })),
);
const fwSeconds = (performance.now() - started) / 1000;
const peak = stopSampling();
const livePeak = stopLive();
const updated = outcomes.filter((o) => o.status === "DELIVERED").length;
const counted = fromDevices<number>("versions");
child.send({ count: true });
const versions = await counted;
const fwRate = (devices * blocksEach) / fwSeconds;
const overIdleMiB = (peak - idle) / 1024 / 1024;
const liveMiB = Math.max(0, livePeak - idle) / 1024 / 1024;
console.log(
  `firmware push    ${devices} × ${kib} KiB in ${fwSeconds.toFixed(2)} s: ${fwRate.toFixed(0)} blocks/s, ` +
    `${updated} DELIVERED, ${versions} report 2.0.0; heap+buffers ${overIdleMiB.toFixed(1)} MiB over idle at peak, ` +
    `${liveMiB.toFixed(1)} MiB of it live after a GC ` +
    `(the server's); ratio to bare: ${(fwRate / bareRate).toFixed(2)}×`,
);
const failures = outcomes.filter((o) => o.status !== "DELIVERED").map((o) => ("message" in o ? o.message : o.status));
if (failures.length > 0) console.log(`failures: ${[...new Set(failures)].join("; ")}`);
server.close();
child.send({ stop: true });
await new Promise((r) => child.once("exit", r));
await lwm2m.close();
await registry.close();

const ok = updated === devices && versions === devices && overIdleMiB <= 64 && fwRate >= 0.5 * bareRate;
printResult({
  measure: `LwM2M firmware push of ${kib} KiB to ${devices} devices: CoAP blocks/s`,
  figure: `${fwRate.toFixed(0)} blocks/s`,
  baseline: `bare block-wise PUT ${bareRate.toFixed(0)} blocks/s`,
  ratio: fwRate / bareRate,
  goal: "all updated, memory ≤ 64 MB over idle, ≥ 0.5 × bare block-wise",
  met: ok,
});
process.exit(ok ? 0 : 1);
