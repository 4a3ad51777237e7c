/**
 * LwM2M bootstrap then registration: the LwM2M server (createLwm2mServer on the CoAP message layer over UDP, its
 * registry the in-process FakeRegistryClient, so the figures are the adapter's) taking N devices that each send a
 * Bootstrap-Request, take the Bootstrap-Delete, the Security and Server writes and the Bootstrap-Finish, and then
 * Register with what they were given; against the same devices registering directly (no bootstrap), in the same run.
 *
 *   pnpm bench:lwm2m-bootstrap [devices=10000] [rate=500] [clientProcesses=1]
 *
 * Each device is the project's client simulator on a UDP socket of its own (the server tells clients apart by
 * address), started at `rate` per second whatever the others are doing (an open loop); a device with no
 * Bootstrap-Finish 20 s after its Bootstrap-Request sends it again (at most 3 times), as a client does. The devices
 * run in `clientProcesses` child processes (the devices of a run split among them), so the server's process does
 * only the server's work; the bootstraps the server gave up (its "bootstrap failed" log, counted without being
 * written) are printed by reason. A device's latency is from its first Bootstrap-Request to its Register's 2.01,
 * measured by the device. The CPU milliseconds a device cost the server and the clients are printed beside the
 * rates, which a busy machine distorts less. Exits 1 when a device did not end registered or the bootstrap-and-register
 * p99 is above 500 ms.
 */
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { createMessageLayer, listenUdp, type MessageLayer, type UdpListener } from "@iot/adapter-coap";
import { FakeRegistryClient, type FakeDevice } from "@iot/adapter-core";
import { Lwm2mClientSimulator, createLwm2mServer } from "@iot/adapter-lwm2m";
import { cpuSeconds, percentile, positiveInt } from "./figures.js";
import { printResult } from "./result.js";

const imei = (i: number) => String(353_000_000_000_000 + i);
const silent = pino({ level: "silent" });
/** Epoch milliseconds, sub-millisecond, comparable across the processes. */
const now = () => performance.timeOrigin + performance.now();

/** What the server process tells a client process. */
interface Job {
  readonly port: number;
  /** The devices (indices) this process runs, in start order, and when each is due (epoch ms, once `go` comes). */
  readonly indices: readonly number[];
  readonly rate: number;
  readonly bootstrap: boolean;
  readonly lifetime: number;
}

/** What a client process answers once its devices are done. */
interface Outcome {
  readonly latencies: number[];
  readonly registered: number;
  readonly lastDone: number;
  /** Bootstraps a device started again because no Bootstrap-Finish came within BOOTSTRAP_WAIT_MS. */
  readonly retries: number;
}

/** How long a device waits for Bootstrap-Finish before it sends its Bootstrap-Request again, as a client does. */
const BOOTSTRAP_WAIT_MS = 20_000;
/** Bootstrap-Requests a device sends at most. */
const BOOTSTRAP_ATTEMPTS = 3;

/** Bootstraps, starting again when no Bootstrap-Finish comes in time; answers how many attempts it took. */
async function bootstrapOnce(sim: Lwm2mClientSimulator): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    let timer: NodeJS.Timeout | undefined;
    try {
      await sim.bootstrap(undefined, (session) => {
        timer = setTimeout(() => session.abandon("no Bootstrap-Finish in time"), BOOTSTRAP_WAIT_MS);
      });
      return attempt;
    } catch (err) {
      if (attempt >= BOOTSTRAP_ATTEMPTS) throw err;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The client side: one simulator per device, each on its own socket; runs when `go` names the start. */
async function clientProcess(): Promise<void> {
  const [job] = (await once(process, "message")) as [Job];
  const server = { address: "127.0.0.1", port: job.port };
  const all: { index: number; sim: Lwm2mClientSimulator; layer: MessageLayer; udp: UdpListener }[] = [];
  for (const index of job.indices) {
    const sim = new Lwm2mClientSimulator({ endpoint: imei(index), version: "1.1", lifetime: job.lifetime });
    let udp: UdpListener | undefined;
    const layer = createMessageLayer(sim.handler, {
      logger: silent,
      maxBodyBytes: 65_536,
      send: (d, p) => udp?.send(d, p),
    });
    udp = await listenUdp(layer, { port: 0, host: "127.0.0.1", onError: () => {} });
    sim.attach(layer, server);
    all.push({ index, sim, layer, udp });
  }
  process.send!({ ready: true });
  const [{ startAt }] = (await once(process, "message")) as [{ startAt: number }];
  const latencies: number[] = [];
  let registered = 0;
  let retries = 0;
  let lastDone = startAt;
  const sequences = all.map(async (c) => {
    const wait = startAt + (c.index * 1000) / job.rate - now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const t0 = now();
    try {
      if (job.bootstrap) retries += (await bootstrapOnce(c.sim)) - 1;
      if ((await c.sim.register()).code === "2.01") registered++;
      const done = now();
      latencies.push(done - t0);
      lastDone = Math.max(lastDone, done);
    } catch {
      // counted as not registered
    }
  });
  await Promise.all(sequences);
  for (const c of all) {
    await c.sim.deregister().catch(() => {});
    c.layer.close();
    await c.udp.close();
  }
  process.send!({ latencies, registered, lastDone, retries } satisfies Outcome);
  process.disconnect();
}

async function serverProcess(): Promise<void> {
  const devices = positiveInt(process.argv[2], 10_000);
  const rate = positiveInt(process.argv[3], 500);
  const processes = positiveInt(process.argv[4], 1);
  const fleet: FakeDevice[] = Array.from({ length: devices }, (_, i) => ({
    deviceIntId: i + 1,
    deviceId: `bench-${i}`,
    username: `bench-${i}`,
    token: "unused",
    imei: imei(i),
  }));
  const registry = new FakeRegistryClient({ devices: fleet });
  registry.start();
  /** Why the server gave bootstraps up: its "bootstrap failed" lines, counted and never serialised. */
  const failures = new Map<string, number>();
  const logger = pino({
    level: "info",
    hooks: {
      logMethod(args) {
        const [fields, message] = args as unknown[];
        if (message !== "bootstrap failed") return;
        const reason = String((fields as { reason?: unknown }).reason).replace(/\d+/g, "N");
        failures.set(reason, (failures.get(reason) ?? 0) + 1);
      },
    },
  });
  const server = createLwm2mServer({ registry, logger, policyDefault: "allow", queueAwakeSeconds: 93 });
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
  const port = serverUdp.port;

  /** One phase: every device's sequence at `rate`/s, the devices in child processes. */
  const run = async (bootstrap: boolean) => {
    const children: ChildProcess[] = [];
    for (let k = 0; k < processes; k++) {
      const child = fork(fileURLToPath(import.meta.url), ["--clients"], { execArgv: ["--import", "tsx"] });
      const indices = Array.from({ length: devices }, (_, i) => i).filter((i) => i % processes === k);
      child.send({ port, indices, rate, bootstrap, lifetime: bootstrap ? 86_400 : 86_401 } satisfies Job);
      children.push(child);
    }
    await Promise.all(children.map((c) => once(c, "message")));
    const outcomes = children.map((c) => once(c, "message") as Promise<[Outcome]>);
    const cpu0 = cpuSeconds(process.pid);
    const clientCpu0 = children.map((c) => cpuSeconds(c.pid) ?? NaN);
    const startAt = now() + 50;
    for (const c of children) c.send({ startAt });
    const results = (await Promise.all(outcomes)).map(([o]) => o);
    const cpu = (cpuSeconds(process.pid) ?? NaN) - (cpu0 ?? NaN);
    const clientCpu = children.reduce((sum, c, k) => sum + (cpuSeconds(c.pid) ?? NaN) - clientCpu0[k]!, 0);
    await Promise.all(children.map((c) => (c.exitCode === null ? once(c, "exit") : Promise.resolve([]))));
    const sorted = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
    const seconds = (Math.max(...results.map((r) => r.lastDone)) - startAt) / 1000;
    const registered = results.reduce((n, r) => n + r.registered, 0);
    return {
      retries: results.reduce((n, r) => n + r.retries, 0),
      seconds,
      registered,
      cpuMsPerDevice: (cpu * 1000) / devices,
      clientCpuMsPerDevice: (clientCpu * 1000) / devices,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? 0,
    };
  };

  const line = (name: string, r: Awaited<ReturnType<typeof run>>) =>
    console.log(
      `${name.padEnd(20)} ${r.registered}/${devices} registered in ${r.seconds.toFixed(2)} s ` +
        `(${(devices / r.seconds).toFixed(0)}/s): p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ` +
        `max ${r.max.toFixed(1)} ms; CPU a device: server ${r.cpuMsPerDevice.toFixed(2)} ms, ` +
        `clients ${r.clientCpuMsPerDevice.toFixed(2)} ms; bootstraps started again ${r.retries}`,
    );
  const direct = await run(false);
  line("register only", direct);
  const measured = await run(true);
  line("bootstrap+register", measured);
  for (const [reason, count] of failures) console.log(`server gave up ${count} bootstraps: ${reason}`);
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
}

if (process.argv[2] === "--clients") await clientProcess();
else await serverProcess();
