/**
 * LwM2M bootstrap then registration: the LwM2M server (createLwm2mServer on the CoAP message layer over UDP, its
 * registry the in-process FakeRegistryClient, so the figures are the adapter's) taking N devices that each send a
 * Bootstrap-Request, take the Bootstrap-Delete, the Security and Server writes and the Bootstrap-Finish, and then
 * Register with what they were given; against the same devices registering directly (no bootstrap), in the same run.
 *
 *   pnpm bench:lwm2m-bootstrap [devices=2000] [rate=500]
 *
 * Each device is the project's client simulator on a UDP socket of its own (the server tells clients apart by
 * address), started at `rate` per second whatever the others are doing (an open loop). A device's latency is from
 * its Bootstrap-Request to its Register's 2.01. Exits 1 when a device did not end registered or p99 is above 500 ms.
 * The clients run in the benchmark's process beside the server, so their CPU is counted against it.
 *
 * On this 2-core machine shared with other work (load average 16): 500 devices at 100/s all registered, bootstrap
 * and Register p50 183 ms, p99 501 ms, against Register alone p50 1.2 ms, p99 81 ms; one warm sequence alone
 * (Delete, two Writes, Finish, Register) takes 6–9 ms.
 */
import pino from "pino";
import { createMessageLayer, listenUdp, type MessageLayer, type UdpListener } from "@iot/adapter-coap";
import { FakeRegistryClient, type FakeDevice } from "@iot/adapter-core";
import { Lwm2mClientSimulator, createLwm2mServer } from "@iot/adapter-lwm2m";
import { percentile, positiveInt } from "./figures.js";
import { printResult } from "./result.js";

const devices = positiveInt(process.argv[2], 2000);
const rate = positiveInt(process.argv[3], 500);
const imei = (i: number) => String(353_000_000_000_000 + i);
const silent = pino({ level: "silent" });

const fleet: FakeDevice[] = Array.from({ length: devices }, (_, i) => ({
  deviceIntId: i + 1,
  deviceId: `bench-${i}`,
  username: `bench-${i}`,
  token: "unused",
  imei: imei(i),
}));
const registry = new FakeRegistryClient({ devices: fleet });
registry.start();
const server = createLwm2mServer({ registry, logger: silent, policyDefault: "allow", queueAwakeSeconds: 93 });
let serverUdp: UdpListener | undefined;
const serverLayer = createMessageLayer(server.handler, {
  logger: silent,
  maxBodyBytes: 65_536,
  send: (d, p) => serverUdp?.send(d, p),
});
server.attach(serverLayer);
serverUdp = await listenUdp(serverLayer, {
  port: 0,
  host: "127.0.0.1",
  onError: () => {},
  receiveBufferBytes: 4 << 20,
});
const serverPeer = { address: "127.0.0.1", port: serverUdp.port };

/** N simulated clients, each on its own socket. */
async function clients(offset: number) {
  const out: { sim: Lwm2mClientSimulator; layer: MessageLayer; udp: UdpListener }[] = [];
  for (let i = 0; i < devices; i++) {
    const sim = new Lwm2mClientSimulator({ endpoint: imei(i), version: "1.1", lifetime: 86_400 + offset });
    let udp: UdpListener | undefined;
    const layer = createMessageLayer(sim.handler, {
      logger: silent,
      maxBodyBytes: 65_536,
      send: (d, p) => udp?.send(d, p),
    });
    udp = await listenUdp(layer, { port: 0, host: "127.0.0.1", onError: () => {} });
    sim.attach(layer, serverPeer);
    out.push({ sim, layer, udp });
  }
  return out;
}

/** Starts each client's sequence at `rate`/s; answers every latency (ms) and how many ended registered. */
async function run(bootstrap: boolean) {
  const all = await clients(bootstrap ? 0 : 1);
  const latencies: number[] = [];
  let registered = 0;
  const started = performance.now();
  const sequences: Promise<void>[] = [];
  for (const [i, c] of all.entries()) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const t0 = performance.now();
    sequences.push(
      (async () => {
        try {
          if (bootstrap) await c.sim.bootstrap();
          if ((await c.sim.register()).code === "2.01") registered++;
          latencies.push(performance.now() - t0);
        } catch {
          // counted as not registered
        }
      })(),
    );
  }
  await Promise.all(sequences);
  const seconds = (performance.now() - started) / 1000;
  for (const c of all) {
    await c.sim.deregister().catch(() => {});
    c.layer.close();
    await c.udp.close();
  }
  const sorted = latencies.sort((a, b) => a - b);
  return { seconds, registered, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 };
}

const line = (name: string, r: Awaited<ReturnType<typeof run>>) =>
  console.log(
    `${name.padEnd(20)} ${r.registered}/${devices} registered in ${r.seconds.toFixed(2)} s ` +
      `(${(devices / r.seconds).toFixed(0)}/s): p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, max ${r.max.toFixed(1)} ms`,
  );
const direct = await run(false);
line("register only", direct);
const measured = await run(true);
line("bootstrap+register", measured);
server.close();
serverLayer.close();
await serverUdp.close();
await registry.close();
const ok = measured.registered === devices && measured.p99 <= 500;
printResult({
  measure: `LwM2M bootstrap then Register p99 at ${rate}/s, ${devices} devices`,
  figure: `${measured.p99.toFixed(1)} ms`,
  baseline: `Register alone p99 ${direct.p99.toFixed(1)} ms`,
  ratio: measured.p99 / direct.p99,
  goal: "every device registered, p99 ≤ 500 ms",
  met: ok,
});
process.exit(ok ? 0 : 1);
