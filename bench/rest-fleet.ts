/**
 * REST at fleet size: the device list (first page, a deep page, a `deviceName_like` and a `deviceID_like` search), a
 * device's detail, the uplink list of one busy device and of the whole tenant (first page), and the uplinks and
 * commands of devices found by name or id
 * (the seed has no commands: that list's figure is the search's own cost), with N devices and M uplinks in the
 * store, through the whole API in process (`app.request`: routing, auth, validation, query, rendering); beside the
 * baseline of the same run, the device detail (one row by primary key).
 *
 *   pnpm bench:rest [devices=100000] [events=1000000] [requests=200]
 *
 * SQLite (a temp dir, removed afterwards); PostgreSQL too when IOT_BENCH_DATABASE_URL (or IOT_DATABASE_URL) is set
 * (a throw-away schema, dropped afterwards; BENCH_PG_ONLY=1 skips SQLite). The data is seeded with one
 * INSERT … SELECT per table. A tenth of the uplinks belong to one device, whose list is measured; the rest are spread
 * over the fleet. Besides wall-clock percentiles it prints each request's CPU time, which a busy machine inflates less.
 * The goal (issue 19): p95 ≤ 20 ms for each request at 100,000 devices and 1,000,000 uplinks.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { createApp } from "@iot/api";
import {
  bootstrapAdmin,
  CommandRouter,
  createProduct,
  LiveUpdates,
  openRegistryStore,
  recountUplinks,
  SessionTable,
  type Caller,
  type Store,
  type StoreOptions,
} from "@iot/registry";
import { percentile } from "./figures.js";
import { printResult } from "./result.js";

const devices = Number(process.argv[2] ?? 100_000);
const events = Number(process.argv[3] ?? 1_000_000);
const requests = Number(process.argv[4] ?? 200);
for (const n of [devices, events, requests])
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new Error(`expected positive integers, got ${process.argv.slice(2).join(" ")}`);
const GOAL_MS = 20;

/** Seeds `devices` devices named "meter <i>" and `events` uplinks (every tenth of the first device). */
async function seed(store: Store, caller: Caller, productIntId: number) {
  const now = Date.now();
  const pg = store.engine === "postgres";
  const series = (n: number) =>
    pg
      ? sql`select g as i from generate_series(1, ${sql.lit(n)}) as g`
      : sql`with recursive s(i) as (select 1 union all select i + 1 from s where i < ${sql.lit(n)}) select i from s`;
  await sql`insert into devices (tenant_id, user_int_id, product_int_id, device_id, device_name, device_username,
      token, auth_type, device_type, up_link_system, blocked, device_status, create_at)
    select ${caller.tenantId}, ${caller.userIntId}, ${productIntId}, 'dev-' || i, 'meter ' || i, 'user-' || i,
      'tok-' || i, 1, 1, 1, 0, i % 2, ${sql.lit(now)} + i from (${series(devices)}) as n`.execute(store.db);
  const first = await store.db
    .selectFrom("devices")
    .select(sql<number>`min(id)`.as("id"))
    .where("tenantId", "=", caller.tenantId)
    .executeTakeFirstOrThrow();
  const firstId = Number(first.id);
  const payload = pg ? sql`convert_to('{"t":' || i || '}', 'UTF8')` : sql`cast('{"t":' || i || '}' as blob)`;
  await sql`insert into device_events (tenant_id, device_int_id, topic, payload, qos, msg_time, create_at, msg_key)
    select ${caller.tenantId}, case when i % 10 = 0 then ${firstId} else ${firstId} + i % ${devices} end,
      'data', ${payload}, 1, ${sql.lit(now)} + i, ${sql.lit(now)} + i, 'k-' || i from (${series(events)}) as n`.execute(
    store.db,
  );
  // Inserted past the uplink writer: the tenant's uplink count is made from the rows, as migration 0024 does.
  await recountUplinks(store.db);
  // As a fleet's tables are after a while: planner statistics, and (PostgreSQL) autovacuum's visibility map.
  await (pg ? sql`vacuum analyze` : sql`analyze`).execute(store.db);
  return firstId;
}

/** An API over the store, with an admin token. */
async function api(store: Store) {
  const sessions = new SessionTable();
  const app = createApp({
    store,
    tokenSecret: "bench-secret",
    tokenTtlSeconds: 3600,
    loginMaxFailures: 5,
    loginWindowSeconds: 300,
    sessions,
    live: new LiveUpdates(store.db, sessions),
    commands: new CommandRouter(store.db, sessions, 60_000),
    configChanges: { tenantChanged: () => {} },
    nodeId: "bench",
    form: "2",
    brokers: { mqttBroker: "bench:1883", mqttsBroker: "bench:8883" },
    startedAt: Date.now(),
    logError: (e) => console.error(e),
    logDebug: () => {},
  });
  const res = await app.request("/api/v1/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "bench", password: "bench-pass-1" }),
  });
  const token = ((await res.json()) as { token: string }).token;
  return async (path: string) => {
    const r = await app.request(`/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await r.json()) as { items?: unknown[]; meta?: { count: number } };
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(body)}`);
    return body;
  };
}

/**
 * Times `requests` calls of `path` (after a few warm-ups): wall ms each, and the process's CPU ms each (on a shared
 * machine the wall time is mostly waiting for a core; the CPU time tells what a request costs).
 */
async function timeCalls(call: (path: string) => Promise<unknown>, path: string) {
  for (let i = 0; i < 5; i++) await call(path);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    await call(path);
    const used = process.cpuUsage(cpuStarted);
    wall.push(performance.now() - started);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wall, cpu };
}

async function bench(engine: string, options: StoreOptions, cleanup: () => Promise<void>) {
  const store = await openRegistryStore(options);
  try {
    const boot = await bootstrapAdmin(store.db, { username: "bench", password: "bench-pass-1", tenantName: "B" });
    const caller: Caller = {
      userIntId: 1,
      username: "bench",
      tenantId: boot.tenantId!,
      role: "admin",
      serviceAdmin: true,
    };
    const product = await createProduct(store.db, caller, { productName: "Meters", cloudProtocol: 1 });
    const seeding = performance.now();
    const busy = await seed(store, caller, product.id);
    const size = `${devices.toLocaleString("en")} devices, ${events.toLocaleString("en")} uplinks`;
    console.log(`${engine}: seeded ${size} in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
    const call = await api(store);
    const deep = Math.max(1, Math.floor(devices / 20));
    const requestsOf: Array<[string, string]> = [
      ["device detail", `/devices/${busy + 7}`],
      ["first page", "/devices?_page=1&_limit=10"],
      [`page ${deep}`, `/devices?_page=${deep}&_limit=10`],
      ["deviceName_like", `/devices?deviceName_like=${encodeURIComponent("meter 4242")}&_limit=10`],
      ["one device's uplinks", `/devices/${busy}/events?_page=1&_limit=10`],
      ["uplinks, first page", `/device_events?_page=1&_limit=10`],
      ["uplinks, deviceName_like", `/device_events?deviceName_like=${encodeURIComponent("meter 4242")}&_limit=10`],
      ["deviceID_like", `/devices?deviceID_like=${encodeURIComponent("dev-4242")}&_limit=10`],
      ["uplinks, deviceID_like", `/device_events?deviceID_like=${encodeURIComponent("dev-4242")}&_limit=10`],
      ["commands, deviceID_like", `/device_control_logs?deviceID_like=${encodeURIComponent("dev-4242")}&_limit=10`],
    ];
    let baselineP95 = NaN;
    for (const [name, path] of requestsOf) {
      const { wall, cpu } = await timeCalls(call, path);
      const [p50, p95, p99] = [50, 95, 99].map((p) => percentile(wall, p)) as [number, number, number];
      if (Number.isNaN(baselineP95)) baselineP95 = p95;
      console.log(
        `${engine} ${name.padEnd(22)} p50 ${p50.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms ` +
          `(${(p95 / baselineP95).toFixed(1)}x the detail's p95); CPU p50 ${percentile(cpu, 50).toFixed(2)} ms`,
      );
      printResult({
        measure: `REST ${name} p95 (${engine}, ${size})`,
        figure: `${p95.toFixed(2)} ms`,
        baseline: `device detail p95 ${baselineP95.toFixed(2)} ms`,
        ratio: p95 / baselineP95,
        goal: `p95 ≤ ${GOAL_MS} ms`,
        met: p95 <= GOAL_MS,
      });
    }
  } finally {
    await store.close();
    await cleanup();
  }
}

const dir = mkdtempSync(join(tmpdir(), "bench-rest-"));
if (!process.env.BENCH_PG_ONLY)
  await bench("SQLite", { dataDir: dir }, async () => rmSync(dir, { recursive: true, force: true }));
const pgUrl = process.env.IOT_BENCH_DATABASE_URL || process.env.IOT_DATABASE_URL;
if (pgUrl) {
  const pgSchema = `bench_rest_${randomBytes(4).toString("hex")}`;
  await bench("PostgreSQL", { dataDir: "", databaseUrl: pgUrl, pgSchema }, async () => {
    const cleaner = await openRegistryStore({ dataDir: "", databaseUrl: pgUrl, pgSchema });
    await cleaner.db.schema.dropSchema(pgSchema).cascade().execute();
    await cleaner.close();
  });
}
