/**
 * The soak's checks at the end of a run, each a row of the report: what was measured, the goal, and whether it is
 * met. The store is read through a SoakStore (the central node's SQLite file, or the nodes' PostgreSQL database).
 */
import type { ChurnCounts } from "./churn.js";
import { slopeMBPerHour, type Samples } from "./probe.js";
import type { SoakPlan } from "./settings.js";
import type { SoakStore } from "./store.js";
import type { SoakLoad, Traffic } from "./traffic.js";

export interface Check {
  readonly name: string;
  readonly figure: string;
  readonly goal: string;
  /** null: printed, not checked (slopes of a short run). */
  readonly ok: boolean | null;
}

const MB = 2 ** 20;

/** Fixed room in the store whatever the rows (schema, indexes' first pages, the WAL's checkpointed pages). */
const STORE_BASE_BYTES = 32 * MB;
/** Most bytes a kept row may take, all its indexes included (the soak's payloads are under 100 bytes). */
const BYTES_PER_ROW = 1024;

/** Stored payloads of each device, read once. */
async function storedPayloads(store: SoakStore, loads: readonly SoakLoad[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  for (const l of loads) {
    const rows = await store.all("select payload from device_events where device_int_id = ?", [l.device.id]);
    out.set(
      l.device.id,
      rows.map((r) => Buffer.from(r.payload as Uint8Array).toString()),
    );
  }
  return out;
}

/**
 * Acknowledged uplinks missing from the store (goal 0), and duplicates beyond at-least-once: a load may have stored
 * twice only what was under way when its connection went (its lanes, per drop of its connection and per kill of a
 * process on its path) and what it sent again after a refusal.
 */
export async function storeChecks(store: SoakStore, traffic: Traffic, churn: ChurnCounts): Promise<Check[]> {
  const stored = await storedPayloads(store, traffic.loads);
  const path: Record<string, string> = {
    mqtt: "mqtt-adapter",
    mqtt5: "mqtt-adapter",
    http: "http-adapter",
    coap: "coap-adapter",
    coaps: "coap-adapter",
    lorawan: "lorawan-adapter",
  };
  const rows: Check[] = [];
  for (const protocol of ["mqtt", "mqtt5", "http", "coap", "coaps", "lorawan"] as const) {
    const loads = traffic.loads.filter((l) => l.protocol === protocol);
    const kills = churn.kills.filter((k) => k.name === path[protocol] || k.name.startsWith("central")).length;
    let acked = 0;
    let lost = 0;
    let firstLost: string | undefined;
    let duplicates = 0;
    let allowed = 0;
    for (const l of loads) {
      const c = l.ledger.compare(stored.get(l.device.id) ?? []);
      acked += l.ledger.count;
      lost += c.lost;
      firstLost ??= c.firstLost;
      duplicates += c.duplicates;
      allowed += l.load.resent + l.load.lanes * (l.reconnects + kills);
    }
    rows.push({
      name: `${protocol}: acknowledged uplinks lost`,
      figure: `${lost} of ${acked}${firstLost ? ` (first ${firstLost})` : ""}`,
      goal: "0",
      ok: lost === 0 && acked > 0,
    });
    rows.push({
      name: `${protocol}: duplicates`,
      figure: `${duplicates} (at-least-once resends allowed ${allowed})`,
      goal: "≤ resends",
      ok: duplicates <= allowed,
    });
  }
  return rows;
}

/** Modbus: every meter has reports stored in the last fifth of the run (polling survived every kill). */
export async function modbusCheck(store: SoakStore, traffic: Traffic, sinceMs: number): Promise<Check> {
  const counts: number[] = [];
  for (const m of traffic.modbusMeters) {
    const [row] = await store.all(
      "select count(*) as n from device_events where device_int_id = ? and create_at >= ?",
      [m.id, sinceMs],
    );
    counts.push(Number(row!.n));
  }
  const silent = counts.filter((n) => n === 0).length;
  return {
    name: "modbus: meters with no report in the last fifth",
    figure: `${silent} of ${counts.length} (${counts.reduce((a, b) => a + b, 0)} reports)`,
    goal: "0",
    ok: silent === 0 && counts.length > 0,
  };
}

/**
 * Commands still "issued" (publishStatus 1) although their TTL ran out more than `slackMs` ago; the commands of the
 * last `slackMs` of the run are not judged.
 */
export async function commandsCheck(store: SoakStore, slackMs: number): Promise<Check> {
  const [row] = await store.all(
    "select count(*) as n, (select count(*) from control_logs) as total from control_logs where publish_status = 1 and expires_at is not null and expires_at < ?",
    [Date.now() - slackMs],
  );
  return {
    name: "commands left issued past their TTL",
    figure: `${Number(row!.n)} of ${Number(row!.total)} commands`,
    goal: "0",
    ok: Number(row!.n) === 0,
  };
}

/**
 * The store's size against what retention allows: with a run shorter than IOT_RETENTION_DAYS and the outbox's
 * retention every row is still within retention, so the file may hold those rows and no more.
 */
export async function sizeCheck(store: SoakStore): Promise<Check> {
  let rows = 0;
  for (const table of ["device_events", "connect_logs", "control_logs", "northbound_events", "webhook_deliveries"])
    rows += Number((await store.all(`select count(*) as n from ${table}`))[0]!.n);
  const bytes = await store.bytes();
  const allowed = STORE_BASE_BYTES + rows * BYTES_PER_ROW;
  return {
    name: `database size (${store.engine === "SQLite" ? "file and WAL" : "pg_database_size"})`,
    figure: `${(bytes / MB).toFixed(1)} MB for ${rows} rows kept (${rows ? Math.round(bytes / rows) : 0} B a row)`,
    goal: `≤ ${(allowed / MB).toFixed(1)} MB (32 MB + 1 KiB a row)`,
    ok: bytes <= allowed,
  };
}

/** Fewest acks in a window for its p99 to be compared. */
const MIN_ACKS = 100;

/**
 * Ack p99 per protocol, first window against the last: within 20 %, or 5 ms where the figures are a few ms (a
 * single slow moment of a shared machine moves a p99 of a few hundred acks by more than that), plus the load
 * generator's own timer delay p99 in the last window (its stalls delay every ack it sees; measured in the same run).
 */
export function latencyChecks(traffic: Traffic, plan: SoakPlan): { checks: Check[]; table: string[] } {
  const windows = Math.round(plan.runMs / plan.windowMs);
  const checks: Check[] = [];
  const table = [`ack p99 per window of ${(plan.windowMs / 1000).toFixed(0)} s, ms (count):`];
  const driver = traffic.latency.driver.summary(windows);
  const lastDriver = [...driver].reverse().find((w) => w.count > 0)?.p ?? 0;
  for (const [protocol, latency] of Object.entries(traffic.latency)) {
    const s = latency.summary(windows);
    table.push(`  ${protocol.padEnd(8)} ${s.map((w) => `${w.p.toFixed(1)} (${w.count})`).join("  ")}`);
    if (protocol === "driver") continue;
    const first = s.find((w) => w.count > 0);
    const last = [...s].reverse().find((w) => w.count > 0);
    // A p99 of fewer than MIN_ACKS acks is its slowest one or two: printed, not compared.
    const enough = !!first && !!last && first.count >= MIN_ACKS && last.count >= MIN_ACKS;
    checks.push({
      name: `${protocol}: ack p99, last window against the first`,
      figure: first && last ? `${last.p.toFixed(1)} ms against ${first.p.toFixed(1)} ms` : "no acks",
      goal: `≤ first × 1.2 (or + 5 ms) + driver delay ${lastDriver.toFixed(1)} ms, windows of ≥ ${MIN_ACKS} acks`,
      ok: !first || !last ? false : enough ? last.p <= Math.max(first.p * 1.2, first.p + 5) + lastDriver : null,
    });
  }
  return { checks, table };
}

/** Per process: RSS and heap first and last, their slopes over the slope window, and the event-loop p99. */
export function processChecks(samples: Samples, plan: SoakPlan): { checks: Check[]; table: string[] } {
  const checks: Check[] = [];
  const table = ["process          pid    RSS MB first→last  heap MB first→last  loop p99 ms max  RSS MB/h  heap MB/h"];
  for (const [name, list] of samples) {
    const lastPid = list.at(-1)!.pid;
    // Slopes over the last incarnation of the process (a killed one starts afresh), after the warm-up.
    const own = list.filter((x) => x.pid === lastPid && x.atMs >= plan.slopeFromMs);
    const rssSlope = slopeMBPerHour(own.map((x) => ({ atMs: x.atMs, value: x.rssMB })));
    const heapSlope = slopeMBPerHour(
      own.filter((x) => x.heapMB !== undefined).map((x) => ({ atMs: x.atMs, value: x.heapMB! })),
    );
    const loop = Math.max(...list.map((x) => x.loopP99Ms ?? 0));
    const f = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? "?" : x.toFixed(1));
    const first = list[0]!;
    const last = list.at(-1)!;
    table.push(
      `${name.padEnd(16)} ${String(lastPid).padEnd(6)} ${`${f(first.rssMB)}→${f(last.rssMB)}`.padEnd(19)} ${`${f(first.heapMB)}→${f(last.heapMB)}`.padEnd(19)} ${f(loop).padEnd(16)} ${f(rssSlope).padEnd(9)} ${f(heapSlope)}`,
    );
    for (const [what, slope] of [
      ["RSS", rssSlope],
      ["heap", heapSlope],
    ] as const)
      checks.push({
        name: `${name}: ${what} slope over the last 80 %`,
        figure: `${f(slope)} MB/h over ${own.length} samples`,
        goal: "≤ 1 MB/h",
        ok: plan.slopes ? own.length >= 3 && slope <= 1 : null,
      });
  }
  return { checks, table };
}
