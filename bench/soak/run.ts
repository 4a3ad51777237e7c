/**
 * One soak run: the fleet, its traffic and churn for `minutes`, every process sampled as it goes, then the checks.
 * Answers the report's lines and its checks; `ok` is false when any check failed.
 */
import { startChurn } from "./churn.js";
import {
  commandsCheck,
  latencyChecks,
  modbusCheck,
  processChecks,
  sizeCheck,
  storeChecks,
  type Check,
} from "./checks.js";
import { startSoakFleet } from "./fleet.js";
import { sampleAll, type Samples } from "./probe.js";
import { planOf, type SoakOptions } from "./settings.js";
import { startTraffic, type Traffic } from "./traffic.js";
import type { SoakFleet } from "./fleet.js";

export interface SoakReport {
  readonly lines: string[];
  readonly checks: Check[];
  readonly ok: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every 500 ms until it answers 0 or `ms` pass; answers its last figure. */
async function settle(probe: () => Promise<number>, ms: number): Promise<number> {
  const end = performance.now() + ms;
  let n = await probe();
  while (n > 0 && performance.now() < end) {
    await sleep(500);
    n = await probe();
  }
  return n;
}

/**
 * Devices whose status disagrees with their sessions: while the soak's devices are connected, every MQTT device
 * online (1) and every LwM2M one registered (1, or 2 asleep in queue mode); once the MQTT devices have disconnected,
 * every one of them offline (0). Each side is given 30 s to settle (a reconnect after a kill, the session grace).
 */
async function statusChecks(
  s: SoakFleet,
  traffic: Traffic,
): Promise<{ connected: Check; stopped: () => Promise<Check> }> {
  const status = async (id: number) => (await s.f.api("GET", `/devices/${id}`)).body?.deviceStatus as number;
  const mqtt = traffic.loads.filter((l) => l.client);
  const wrongWhileUp = async () => {
    let wrong = 0;
    for (const l of mqtt) if (l.client!.connected && (await status(l.device.id)) !== 1) wrong++;
    for (const d of traffic.lwm2m) if (![1, 2].includes(await status(d.device.id))) wrong++;
    return wrong;
  };
  const up = await settle(wrongWhileUp, 30_000);
  return {
    connected: {
      name: "devices whose status disagrees with their sessions (connected)",
      figure: `${up} of ${mqtt.length + traffic.lwm2m.length}`,
      goal: "0",
      ok: up === 0,
    },
    async stopped() {
      const wrongAfter = async () => {
        let wrong = 0;
        for (const l of mqtt) if ((await status(l.device.id)) !== 0) wrong++;
        return wrong;
      };
      const down = await settle(wrongAfter, 30_000);
      return {
        name: "MQTT devices still online after disconnecting",
        figure: `${down} of ${mqtt.length}`,
        goal: "0",
        ok: down === 0,
      };
    },
  };
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? ((line: string) => console.log(line));
  const plan = planOf(options);
  log(
    `soak: ${plan.minutes} min at ${plan.fraction} of capacity, ${plan.databaseUrl ? "two central nodes on PostgreSQL" : "one central node on SQLite"}; windows ${plan.windowMs / 1000} s, samples every ${plan.sampleMs / 1000} s, a kill every ${plan.killEveryMs / 1000} s`,
  );
  const s = await startSoakFleet(plan);
  const samples: Samples = new Map();
  try {
    const startedAt = performance.now();
    const traffic = await startTraffic(s, plan, startedAt, log);
    const churn = await startChurn(s, plan, traffic, startedAt, log);
    const wallStart = Date.now();
    let sampling = true;
    const sampler = (async () => {
      for (let n = 0; sampling; n++) {
        await sampleAll(s.processes(), performance.now() - startedAt, samples);
        const due = startedAt + (n + 1) * plan.sampleMs;
        while (sampling && performance.now() < due) await sleep(Math.min(500, due - performance.now()));
      }
    })();
    while (performance.now() - startedAt < plan.runMs) await sleep(1000);
    await churn.stop();
    sampling = false;
    await sampler;
    log("run over: checking");
    const status = await statusChecks(s, traffic);
    await traffic.stop();
    const store = await s.openStore();
    const checks: Check[] = [];
    try {
      checks.push(
        ...(await storeChecks(store, traffic, churn.counts)),
        await modbusCheck(store, traffic, wallStart + plan.runMs * 0.8),
        status.connected,
        await status.stopped(),
        // A command handed to an adapter may stay issued for the central node's in-flight grace (60 s) after it was
        // handed, its TTL run out or not (the adapter may still answer); then the sweep (at most 5 s) fails it.
        await commandsCheck(store, 70_000),
        await sizeCheck(store),
      );
    } finally {
      await store.close();
    }
    const latency = latencyChecks(traffic, plan);
    const processes = processChecks(samples, plan);
    checks.push(...latency.checks, ...processes.checks);
    const c = churn.counts;
    const lines = [
      `churn: ${c.reconnects} reconnects, ${c.created} created / ${c.blocked} blocked / ${c.deleted} deleted, ${c.commands} commands, ${c.groupPublishes} group publishes, ${c.imported} imported, ${c.exported} exports, ${c.webhookDeliveries} webhook deliveries, ${c.sseEvents} SSE events (${c.sseReconnects} reconnects), ${c.restFailures} REST calls failed`,
      `kills: ${c.kills.map((k) => `${k.name} at ${(k.atMs / 1000).toFixed(0)} s (${k.downMs.toFixed(0)} ms)`).join(", ") || "none"}`,
      ...latency.table,
      ...processes.table,
      "",
      ...checks.map(
        (x) =>
          `${x.ok === null ? "  -  " : x.ok ? " ok  " : "FAIL "} ${x.name.padEnd(58)} ${x.figure}  (goal ${x.goal})`,
      ),
    ];
    return { lines, checks, ok: checks.every((x) => x.ok !== false) };
  } finally {
    await s.close();
  }
}
