/**
 * LoRa Basics Station uplinks: the network server (createNetworkServer, its registry the in-process
 * FakeRegistryClient, so the figures are the adapter's) behind its Basics Station endpoint (listenBasicsStation on
 * a real WebSocket port) taking N updf uplinks of D ABP devices, each frame heard by two stations (two updf
 * messages: rebuilt frame, dedup in the 200 ms window, MIC, FCnt, decryption, the uplink handed to the registry),
 * every `confirmedEvery`-th uplink confirmed so the server answers it with a class A dnmsg. Baseline, in the same
 * run: a bare WebSocket server that only JSON-parses the same messages, fed the same way.
 *
 *   pnpm bench:lora-basics [uplinks=10000] [rate=2500] [devices=1000] [confirmedEvery=10]
 *
 * The two stations are WebSocket clients in a worker thread (stations are other machines), sending at `rate`
 * uplinks per second (paced every 5 ms, open loop). Each upinfo.xtime is the worker's µs clock at sending, so a
 * dnmsg is in time for RX1 when it arrives before xtime + RxDelay (1 s): the share of class A dnmsgs in time and
 * their lead (RX1 − arrival) are reported. The uplink rate is N over the time from the first message to the last
 * uplink the registry received. Exits 1 when an uplink was lost, fewer than 2,000 uplinks/s were kept, or fewer than
 * 99.9 % of the dnmsgs would have made RX1.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import pino from "pino";
import { FakeRegistryClient, type FakeDevice } from "@iot/adapter-core";
import {
  buildUplink,
  createNetworkServer,
  listenBasicsStation,
  REGIONS,
  stationFrameFields,
} from "@iot/adapter-lorawan";
import { positiveInt } from "./figures.js";
import { printResult } from "./result.js";

const total = positiveInt(process.argv[2], 10_000);
const rate = positiveInt(process.argv[3], 2_500);
const deviceCount = positiveInt(process.argv[4], 1_000);
const confirmedEvery = positiveInt(process.argv[5], 10);
const STATIONS = ["b827ebfffe000001", "b827ebfffe000002"];
const NWK = Buffer.from("44024241ed4ce9a68c6a8bc055233fd3", "hex");
const APP = Buffer.from("ec925802ae430ca77fd3dd73cb2cc588", "hex");
const MIN_RATE = 2_000;
const MIN_RX1_SHARE = 0.999;
// `ws` is the LoRaWAN adapter's dependency: the station worker and the baseline load the same copy.
const requireLora = createRequire(import.meta.resolve("@iot/adapter-lorawan"));
const wsPath = requireLora.resolve("ws");
interface SinkSocket {
  on(event: "message", cb: (data: Buffer) => void): void;
}
interface SinkServer {
  on(event: "connection", cb: (ws: SinkSocket) => void): void;
  once(event: "listening", cb: () => void): void;
  address(): { port: number };
  close(): void;
}
const { WebSocketServer } = requireLora("ws") as {
  WebSocketServer: new (o: { port: number; host: string }) => SinkServer;
};
const devAddr = (i: number) => (0x26000000 + i).toString(16).padStart(8, "0");

/** The updf members of every uplink (without the radio metadata, added at sending), in order. */
function buildFrames(): string[] {
  const out: string[] = [];
  for (let n = 0; n < total; n++) {
    const phy = buildUplink({
      devAddr: devAddr(n % deviceCount),
      nwkSKey: NWK,
      appSKey: APP,
      fcnt: Math.floor(n / deviceCount),
      fPort: 1,
      confirmed: n % confirmedEvery === 0,
      payload: Buffer.from(`{"t":${20 + (n % 10)},"n":${n}}`),
    });
    if (!phy.ok) throw new Error(phy.reason);
    out.push(JSON.stringify(stationFrameFields(phy.value)).slice(0, -1));
  }
  return out;
}

interface Run {
  seconds: number;
  /** Lead of each class A dnmsg before its RX1 opened, ms (negative: too late). */
  leads: number[];
}

/**
 * The worker (plain JavaScript, run with `eval`): one WebSocket per station to `urls[i]`, sends `version`, then
 * every frame from every station at `rate` per second with upinfo.xtime = its µs clock; records each dnmsg's lead.
 */
const STATION_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const WebSocket = require(workerData.wsPath);
const { urls, frames, rate } = workerData;
const t0 = performance.now();
const micros = () => Math.round((performance.now() - t0) * 1000);
(async () => {
  const leads = [];
  const sockets = await Promise.all(urls.map((url) => new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on("open", () => { ws.send(JSON.stringify({ msgtype: "version", station: "bench", protocol: 2 })); resolve(ws); });
    ws.on("error", reject);
    ws.on("message", (data) => {
      const text = data.toString();
      if (!text.includes('"dnmsg"')) return;
      const m = JSON.parse(text);
      leads.push((m.xtime + m.RxDelay * 1e6 - micros()) / 1000);
    });
  })));
  await new Promise((r) => setTimeout(r, 200));
  parentPort.postMessage("ready");
  await new Promise((r) => parentPort.once("message", r));
  const start = performance.now();
  let next = 0;
  await new Promise((resolve) => {
    const tick = setInterval(() => {
      const due = Math.min(frames.length, Math.floor(((performance.now() - start) / 1000) * rate));
      for (; next < due; next++) {
        const xtime = micros();
        sockets.forEach((ws, g) => ws.send(frames[next] + ',"DR":5,"Freq":868100000,"upinfo":{"rctx":0,"xtime":' + xtime +
          ',"gpstime":0,"rssi":' + (-60 - g * 10) + ',"snr":' + (7 - g) + '}}'));
      }
      if (next >= frames.length) { clearInterval(tick); resolve(); }
    }, 5);
  });
  parentPort.postMessage("sent");
  await new Promise((r) => parentPort.once("message", r));
  for (const ws of sockets) ws.close();
  parentPort.postMessage({ leads });
})();
`;

async function drive(urls: string[], frames: string[], done: () => boolean): Promise<Run> {
  const worker = new Worker(STATION_WORKER, { eval: true, workerData: { wsPath, urls, frames, rate } });
  await new Promise((r) => worker.once("message", r));
  const start = performance.now();
  worker.postMessage("go");
  await new Promise((r) => worker.once("message", r));
  const deadline = performance.now() + 10_000;
  while (!done() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const seconds = (performance.now() - start) / 1000;
  // Answers to the last confirmed uplinks come up to RX1 later.
  await new Promise((r) => setTimeout(r, 1_200));
  worker.postMessage("stop");
  const { leads } = await new Promise<{ leads: number[] }>((r) => worker.once("message", r));
  await worker.terminate();
  return { seconds, leads };
}

/** Baseline: a bare WebSocket server that JSON-parses each message and counts the uplinks. */
async function sink(frames: string[]) {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise<void>((r) => wss.once("listening", () => r()));
  let messages = 0;
  wss.on("connection", (ws) =>
    ws.on("message", (data) => {
      if ((JSON.parse(data.toString()) as { msgtype: string }).msgtype === "updf") messages++;
    }),
  );
  const url = `ws://127.0.0.1:${wss.address().port}/`;
  const run = await drive([url, url], frames, () => messages >= total * STATIONS.length);
  wss.close();
  return { perSecond: Math.floor(messages / STATIONS.length) / run.seconds };
}

async function stationServer(frames: string[]) {
  const devices: FakeDevice[] = STATIONS.map((eui, i) => ({
    deviceIntId: i + 1,
    deviceId: eui.toUpperCase(),
    username: `gw-${eui}`,
    token: "t",
    isGateway: true,
  }));
  for (let i = 0; i < deviceCount; i++)
    devices.push({
      deviceIntId: 1_000 + i,
      deviceId: devAddr(i).toUpperCase(),
      username: `dev-${i}`,
      token: "t",
      lora: {
        activation: "abp",
        ...{ devEui: "", appEui: "", appKey: "", canJoin: false, fcntCheck: 1, region: "EU868", classC: false },
        session: {
          devAddr: devAddr(i),
          nwkSKey: NWK.toString("hex"),
          appSKey: APP.toString("hex"),
          fcntUp: 0,
          fcntDown: 0,
        },
        usedDevNonces: [],
      },
    });
  const registry = new FakeRegistryClient({ devices, bufferLimit: 1_000_000 });
  const logger = pino({ level: "silent" });
  const server = createNetworkServer({
    registry,
    logger,
    send: () => {},
    netId: "000013",
    policyDefault: "allow",
    gatewayTimeoutSeconds: 600,
    deviceTimeoutSeconds: 3_600,
    devStatusEvery: 0,
  });
  const listener = await listenBasicsStation({
    server,
    logger,
    region: REGIONS.EU868,
    netId: "000013",
    port: 0,
    host: "127.0.0.1",
    pingSeconds: 60,
  });
  const run = await drive(
    STATIONS.map((eui) => `${listener.url}/router-${eui}`),
    frames,
    () => registry.uplinks.length >= total,
  );
  const stored = registry.uplinks.filter((u) => u.topic === "up/1").length;
  const s = server.stats;
  process.stdout.write(
    `server: ${s.uplinks} accepted, ${s.duplicates} duplicate copies, ${s.downlinks} dnmsg, ${s.malformed} malformed\n`,
  );
  await listener.close();
  server.close();
  return { perSecond: stored / run.seconds, stored, leads: run.leads, seconds: run.seconds };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
const frames = buildFrames();
process.stdout.write(`${total} uplinks of ${deviceCount} devices, 2 stations each, offered at ${rate}/s\n`);
const base = await sink(frames);
process.stdout.write(`baseline (bare WebSocket + JSON.parse): ${base.perSecond.toFixed(0)} uplinks/s\n`);
const ns = await stationServer(frames);
const leads = [...ns.leads].sort((a, b) => a - b);
const expected = Math.ceil(total / confirmedEvery);
const inTime = leads.filter((l) => l > 0).length / expected;
process.stdout.write(
  `basics station: ${ns.stored} uplinks in ${ns.seconds.toFixed(2)} s = ${ns.perSecond.toFixed(0)}/s; ` +
    `${leads.length}/${expected} class A dnmsg, ${(inTime * 100).toFixed(2)} % before RX1 opened, lead p1 ` +
    `${pct(leads, 0.01).toFixed(0)} ms, p50 ${pct(leads, 0.5).toFixed(0)} ms, min ${(leads[0] ?? NaN).toFixed(0)} ms; ` +
    `ratio to baseline ${(ns.perSecond / base.perSecond).toFixed(2)}\n`,
);
const failures: string[] = [];
if (ns.stored < total) failures.push(`${total - ns.stored} uplinks lost`);
if (ns.perSecond < MIN_RATE) failures.push(`kept ${ns.perSecond.toFixed(0)} uplinks/s, below ${MIN_RATE}`);
if (inTime < MIN_RX1_SHARE) failures.push(`${(inTime * 100).toFixed(2)} % of dnmsg in time for RX1`);
printResult({
  measure: `LoRa Basics Station uplinks, ${total} of ${deviceCount} devices at ${rate}/s, 1 in ${confirmedEvery} confirmed`,
  figure: `${ns.perSecond.toFixed(0)} uplinks/s, ${(inTime * 100).toFixed(2)} % dnmsg before RX1`,
  baseline: `bare WebSocket + JSON.parse ${base.perSecond.toFixed(0)} uplinks/s`,
  ratio: ns.perSecond / base.perSecond,
  goal: `≥ ${MIN_RATE}/s, ≥ ${MIN_RX1_SHARE * 100} % dnmsg in RX1, none lost`,
  met: failures.length === 0,
});
process.stdout.write(failures.length ? `FAIL: ${failures.join("; ")}\n` : "OK\n");
process.exit(failures.length ? 1 : 0);
