/**
 * Modbus polling: one Modbus adapter (createModbusAdapter, its uplinks acknowledged by core's in-process
 * FakeRegistryClient, so the figures are the adapter's and not the central node's) polling N slaves × R holding
 * registers every second over Modbus TCP, against a bare modbus-serial client reading the same registers of the
 * same slaves every second (no adapter, no decoding, no uplinks), measured one after the other in the same run.
 *
 *   pnpm bench:modbus [slaves=200] [registers=20] [seconds=20]
 *
 * The slaves are one modbus-serial ServerTCP answering units 1..N (a Modbus TCP gateway in front of N slaves, so
 * the adapter's configuration is one channel with N units and all reads share one connection, one at a time), run
 * in a child process (bench/modbus-slaves.ts) so that answering is not counted as the adapter's CPU. Each unit's
 * counter and float registers change every second, so each poll has a change to report. Each side polls for a
 * warm-up of 3 s (the adapter also opens its N slave sessions), then for `seconds` measured.
 *
 * Prints polls/s (N expected), registers read/s, p50/p99 lateness of a poll cycle's start (the adapter's PollStats),
 * when a read's registers were in hand after its cycle started (queueing on the shared connection included), missed
 * cycles, errors, uplinks, and the process's CPU (process.cpuUsage) per 1,000 registers read for both, with the
 * ratio adapter/baseline, and the slave process's CPU. Exits 1 when the adapter kept below 95% of the expected polls
 * or had read errors.
 *
 * On this 2-core machine (200 × 20, 20 s each side, 3 runs, load average 4–6 from other work): both sides kept
 * 200.0 polls/s (4,000 registers/s) with 0 missed cycles and 0 errors, the adapter sent 4,000 uplinks (one per
 * poll); poll lateness p50 0.0 ms, p99 7–29 ms; registers in hand p50 130–156 ms, p99 290–397 ms (baseline 131–147
 * / 263–480 ms: the sweep of 200 reads on one connection, ~1.4 ms each); adapter CPU 4.5–4.7% of a core,
 * 11.3–11.8 ms per 1,000 registers, baseline 1.9–2.2%, 4.6–5.6 ms: ratio 2.0–2.5; slave process 2.7–3.8%.
 */
import { fork, type ChildProcess } from "node:child_process";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import modbusSerial from "modbus-serial";
import pino from "pino";
import { FakeRegistryClient, type FakeDevice } from "@iot/adapter-core";
import {
  CONFIG_TOPIC,
  configPayload,
  createModbusAdapter,
  serialLinkFactory,
  tagEntry,
  tcpChannel,
  type ModbusLink,
} from "@iot/adapter-modbus";
import { printResult } from "./result.js";
import { percentile, positiveInt } from "./figures.js";

const slaves = positiveInt(process.argv[2], 200);
const registers = positiveInt(process.argv[3], 20);
const seconds = positiveInt(process.argv[4], 20);
if (slaves > 247) throw new Error(`one Modbus TCP gateway reaches units 1 to 247, got ${slaves} slaves`);
if (registers > 125) throw new Error(`one Modbus read returns at most 125 registers, got ${registers}`);

/** s polled before measuring: the adapter opens its slave sessions, both sides' code warms up. */
const WARM_UP_S = 3;
const INTERVAL_MS = 1000;
const GATEWAY: FakeDevice = { deviceIntId: 100_000, deviceId: "bench-gw", username: "bench-gw", token: "t" };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The tags of unit `unit` in the slaves' layout (bench/modbus-slaves.ts): a uint16 counter at offset 0, a float32
 * at offsets 1–2 when there are 3 registers or more, int16 values in the rest; one read of `registers` registers.
 */
function unitTags(unit: number): Record<string, unknown>[] {
  const deviceID = `bench-slave-${unit}`;
  const address = (offset: number) => `4${String(offset + 1).padStart(5, "0")}`;
  const tags = [tagEntry(deviceID, unit, "counter", address(0), 16)];
  if (registers >= 3) tags.push(tagEntry(deviceID, unit, "temperature", address(1), 25));
  for (let o = registers >= 3 ? 3 : 1; o < registers; o++) tags.push(tagEntry(deviceID, unit, `r${o}`, address(o), 15));
  return tags;
}

/** Starts the slave process and resolves with it and its port once it listens. */
function startSlaves(): Promise<{ child: ChildProcess; port: number }> {
  const script = fileURLToPath(new URL("./modbus-slaves.ts", import.meta.url));
  const child = fork(script, [String(slaves), String(registers)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    child.once("message", (m: { type: string; port: number }) => resolve({ child, port: m.port }));
    child.once("exit", (code) => reject(new Error(`the slave process exited (${code}) before listening`)));
  });
}

/** The slave process's CPU time so far, µs (user + system); NaN once it is gone (a dead child never hangs the run). */
function slaveCpu(child: ChildProcess): Promise<number> {
  if (!child.connected) return Promise.resolve(Number.NaN);
  return new Promise((resolve) => {
    const answer = (m: { type: string; usage: NodeJS.CpuUsage }) => {
      if (m.type !== "cpu") return;
      done(m.usage.user + m.usage.system);
    };
    const gone = () => done(Number.NaN);
    const done = (us: number) => {
      child.off("message", answer).off("disconnect", gone);
      resolve(us);
    };
    child.on("message", answer).once("disconnect", gone);
    child.send({ type: "cpu" });
  });
}

/** What one side did in its measuring window. */
interface Measured {
  seconds: number;
  polls: number;
  registersRead: number;
  errors: number;
  missedCycles: number;
  /** ms after a cycle's start until a read's registers were in hand. */
  readDone: number[];
  /** CPU of this process and of the slave process in the window, µs. */
  cpuUs: number;
  slaveCpuUs: number;
}

interface Counters {
  polls: number;
  registersRead: number;
  errors: number;
  missedCycles: number;
}

/** Measures `seconds` of a running side whose counters `counters()` returns; `readDone` is filled meanwhile. */
async function measure(child: ChildProcess, counters: () => Counters, readDone: number[]): Promise<Measured> {
  const slaveBefore = await slaveCpu(child);
  const before = counters();
  readDone.length = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await sleep(seconds * 1000);
  const used = process.cpuUsage(cpu);
  const elapsed = (performance.now() - started) / 1000;
  const after = counters();
  const slaveCpuUs = (await slaveCpu(child)) - slaveBefore;
  return {
    seconds: elapsed,
    polls: after.polls - before.polls,
    registersRead: after.registersRead - before.registersRead,
    errors: after.errors - before.errors,
    missedCycles: after.missedCycles - before.missedCycles,
    readDone: [...readDone],
    cpuUs: used.user + used.system,
    slaveCpuUs,
  };
}

/** The adapter polling the slaves at `port`; resolves with its window, its lateness and the uplinks it sent. */
async function runAdapter(child: ChildProcess, port: number) {
  const devices = Array.from({ length: slaves }, (_, i) => ({
    deviceIntId: i + 1,
    deviceId: `bench-slave-${i + 1}`,
    username: `bench-slave-${i + 1}`,
    token: "-",
    gateway: GATEWAY.deviceId,
    modBusIndex: i + 1,
  }));
  const registry = new FakeRegistryClient({ devices: [{ ...GATEWAY, isGateway: true }, ...devices] });
  registry.start();
  const warnings: string[] = [];
  let measuring = false;
  const readDone: number[] = [];
  /** The real link, timing each read from the call (the cycle's start) until its registers are in hand. */
  const timed = (link: ModbusLink): ModbusLink => ({
    endpoint: link.endpoint,
    read: async (unit, area, offset, count) => {
      const started = performance.now();
      const values = await link.read(unit, area, offset, count);
      if (measuring) readDone.push(performance.now() - started);
      return values;
    },
    write: (unit, write) => link.write(unit, write),
    close: () => link.close(),
  });
  const adapter = createModbusAdapter({
    registry,
    logger: pino({ level: "warn" }, { write: (line: string) => void warnings.push(line.trim()) }),
    gateway: { deviceId: GATEWAY.deviceId, username: GATEWAY.username, token: GATEWAY.token },
    reportEverySeconds: 60,
    createLink: (channel, logger) => timed(serialLinkFactory(channel, logger)),
  });
  try {
    await adapter.start();
    const device = Array.from({ length: slaves }, (_, i) => unitTags(i + 1)).flat();
    const channel = tcpChannel(port, device, { chnname: "bench", timeout: 1000, retries: 1, pollInterval: 1000 });
    const outcome = await registry.pushDownlink({
      deviceIntId: GATEWAY.deviceIntId,
      topic: CONFIG_TOPIC,
      payload: configPayload(channel),
    });
    if (outcome.status !== "DELIVERED" || outcome.message) throw new Error(`configuration: ${JSON.stringify(outcome)}`);
    const opening = performance.now();
    while (registry.liveSessions().length < slaves + 1) {
      if (performance.now() - opening > 20_000) throw new Error("the slave sessions did not all open within 20 s");
      await sleep(50);
    }
    await sleep(WARM_UP_S * 1000);
    const uplinksBefore = registry.uplinks.length;
    adapter.stats.resetLateness();
    measuring = true;
    const m = await measure(child, () => adapter.stats.snapshot(), readDone);
    measuring = false;
    const lateness = { p50: adapter.stats.latenessPercentile(50), p99: adapter.stats.latenessPercentile(99) };
    return { ...m, lateness, uplinks: registry.uplinks.length - uplinksBefore, warnings };
  } finally {
    await adapter.close();
    await registry.close();
  }
}

/** The bare loop: one modbus-serial client reading units 1..N one after another, every second on a fixed grid. */
async function runBaseline(child: ChildProcess, port: number) {
  const client = new modbusSerial.default();
  await client.connectTCP("127.0.0.1", { port });
  client.setTimeout(1000);
  const counters: Counters = { polls: 0, registersRead: 0, errors: 0, missedCycles: 0 };
  const readDone: number[] = [];
  let running = true;
  const loop = (async () => {
    let due = performance.now();
    while (running) {
      await sleep(Math.max(0, due - performance.now()));
      for (let unit = 1; unit <= slaves && running; unit++) {
        client.setID(unit);
        try {
          await client.readHoldingRegisters(0, registers);
          counters.polls++;
          counters.registersRead += registers;
          readDone.push(performance.now() - due);
        } catch {
          counters.errors++;
        }
      }
      due += INTERVAL_MS;
      const missed = Math.floor((performance.now() - due) / INTERVAL_MS);
      if (missed > 0) {
        counters.missedCycles += missed;
        due += missed * INTERVAL_MS;
      }
    }
  })();
  try {
    await sleep(WARM_UP_S * 1000);
    return await measure(child, () => ({ ...counters }), readDone);
  } finally {
    running = false;
    await loop;
    await new Promise((resolve) => client.close(resolve));
  }
}

const { child, port } = await startSlaves();
let ending = false;
child.once("exit", (code, signal) => {
  if (ending) return;
  console.error(`the slave process ended during the run (${code ?? signal})`);
  process.exitCode = 1;
});
try {
  const a = await runAdapter(child, port);
  const b = await runBaseline(child, port);

  const perSecond = (m: Measured, n: number) => n / m.seconds;
  const cpuPer1000 = (m: Measured) => m.cpuUs / 1000 / (m.registersRead / 1000);
  const core = (us: number, m: Measured) => `${((us / 1e6 / m.seconds) * 100).toFixed(1)}% of a core`;
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const done = (m: Measured) => `${ms(percentile(m.readDone, 50))} / ${ms(percentile(m.readDone, 99))}`;
  const row = (label: string, value: string) => console.log(`  ${label.padEnd(30)} ${value}`);

  console.log(
    `Modbus TCP polling: ${slaves} slaves (units of one TCP server in a child process) x ${registers} holding ` +
      `registers every ${INTERVAL_MS / 1000} s, ${seconds} s measured after ${WARM_UP_S} s of warm-up; ` +
      `${cpus().length} CPUs`,
  );
  console.log("adapter (createModbusAdapter, in-process fake registry acknowledging uplinks):");
  row("polls/s", `${perSecond(a, a.polls).toFixed(1)} (expected ${slaves})`);
  row("registers read/s", perSecond(a, a.registersRead).toFixed(0));
  row("poll cycle lateness p50 / p99", `${ms(a.lateness.p50)} / ${ms(a.lateness.p99)}`);
  row("registers in hand p50 / p99", done(a));
  row("missed cycles, errors", `${a.missedCycles}, ${a.errors}`);
  row("uplinks sent", `${a.uplinks} (${perSecond(a, a.uplinks).toFixed(1)}/s)`);
  row("CPU", `${core(a.cpuUs, a)}, ${cpuPer1000(a).toFixed(3)} ms per 1,000 registers read`);
  row("slave process CPU", core(a.slaveCpuUs, a));
  if (a.warnings.length > 0) row("warnings logged", `${a.warnings.length}, first: ${a.warnings[0]}`);
  console.log("baseline (bare modbus-serial client loop: no adapter, no decoding, no uplinks):");
  row("polls/s", `${perSecond(b, b.polls).toFixed(1)} (expected ${slaves})`);
  row("registers read/s", perSecond(b, b.registersRead).toFixed(0));
  row("registers in hand p50 / p99", done(b));
  row("missed cycles, errors", `${b.missedCycles}, ${b.errors}`);
  row("CPU", `${core(b.cpuUs, b)}, ${cpuPer1000(b).toFixed(3)} ms per 1,000 registers read`);
  row("slave process CPU", core(b.slaveCpuUs, b));
  console.log(
    `ratio adapter/baseline: CPU per 1,000 registers ${(cpuPer1000(a) / cpuPer1000(b)).toFixed(2)}, ` +
      `polls/s ${(a.polls / a.seconds / (b.polls / b.seconds)).toFixed(2)}`,
  );
  printResult({
    measure: `Modbus polling CPU per 1,000 registers, ${slaves} slaves x ${registers} registers`,
    figure: `${cpuPer1000(a).toFixed(3)} ms`,
    baseline: `bare modbus-serial ${cpuPer1000(b).toFixed(3)} ms`,
    ratio: cpuPer1000(a) / cpuPer1000(b),
    goal: "every slave polled each second, no errors",
    met: a.polls / a.seconds >= 0.95 * slaves && a.errors === 0,
  });
  if (a.polls / a.seconds < 0.95 * slaves || a.errors > 0) process.exitCode = 1;
} finally {
  ending = true;
  if (child.connected) child.disconnect();
  if (child.exitCode === null && child.signalCode === null) {
    const killer = setTimeout(() => child.kill(), 2000);
    await new Promise((resolve) => child.once("exit", resolve));
    clearTimeout(killer);
  }
}
