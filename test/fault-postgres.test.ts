/**
 * Fault injection on PostgreSQL, on a private server (test/private-postgres.ts) so the shared one is untouched: the
 * central node's connections terminated again and again, the server crashed and started again, and the database
 * made slow (a proxy delaying every packet), each under MQTT QoS 1 and HTTP load. Afterwards every acknowledged
 * message is stored once, the processes never restarted, and the log told of each fault and its end.
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reachable } from "../scripts/fleet.js";
import { expectStoredOnce, httpLoad, moreAcks, mqttLoad, type DeviceRun } from "./device-load.js";
import { postgresBin, startPrivatePostgres, type PrivatePostgres } from "./private-postgres.js";
import { startRestartableFleet, watchLog, type RestartableFleet } from "./restartable-fleet.js";
import { startSlowProxy, type SlowProxy } from "./slow-proxy.js";

const bin = postgresBin();
/** CI installs PostgreSQL: there a missing server is a failure, elsewhere the tests say why they did not run. */
const canRun = bin !== undefined || process.env.CI === "true";
if (!canRun) console.warn("SKIPPED the PostgreSQL fault tests: no PostgreSQL server under /usr/lib/postgresql");

let server: PrivatePostgres | undefined;
let proxy: SlowProxy;
let f: RestartableFleet;
let n = 0;

beforeAll(async () => {
  if (!canRun) return;
  if (!bin) throw new Error("CI=true but no PostgreSQL server under /usr/lib/postgresql (initdb, pg_ctl)");
  server = await startPrivatePostgres(bin);
  proxy = await startSlowProxy(server.port);
  const url = `postgres://postgres@127.0.0.1:${proxy.port}/postgres`;
  f = await startRestartableFleet({ IOT_DATABASE_URL: url }, ["mqtt-adapter", "http-adapter"]);
}, 90_000);
afterAll(async () => {
  await f?.close();
  await proxy?.close();
  server?.destroy();
});

/** Starts an MQTT and an HTTP device publishing, each on a device of its own. */
async function loads(lanes = 4): Promise<DeviceRun[]> {
  const m = await f.newDevice(1, `pg-mqtt-${n}`);
  const h = await f.newDevice(5, `pg-http-${n++}`);
  return [
    { device: m, load: await mqttLoad(reachable(f.adapter.urls.mqtt!), m, "pg", { lanes }) },
    { device: h, load: httpLoad(reachable(f.adapters.get("http-adapter")!.urls.http!), h, "pg", { lanes }) },
  ];
}

const api = (m: string, p: string) => f.api(m, p);

describe.runIf(canRun)("PostgreSQL faults under load", () => {
  it("connections terminated five times: no acknowledged message lost or stored twice", async () => {
    const runs = await loads();
    await moreAcks(runs.map((r) => r.load));
    const log = watchLog(f.central);
    const admin = new pg.Client({ connectionString: server!.url });
    await admin.connect();
    try {
      const ours = "from pg_stat_activity where application_name = 'iot-central'";
      for (let i = 0; i < 5; i++) {
        // The pool opens connections again on demand: wait for them, so each round terminates some.
        await expect
          .poll(async () => (await admin.query(`select pid ${ours}`)).rowCount, { timeout: 10_000 })
          .toBeGreaterThan(0);
        await admin.query(`select pg_terminate_backend(pid) ${ours}`);
        await quietFor(400, "the load goes on between two rounds of terminations");
      }
    } finally {
      await admin.end();
    }
    await moreAcks(runs.map((r) => r.load));
    await expect.poll(log, { timeout: 10_000 }).toMatch(/database available again/);
    await expectStoredOnce(api, runs);
    expect(log()).toMatch(/database connection lost: writes fail until it recovers/);
  }, 60_000);

  it("the server crashed and started again: nothing acked while down, everything acked stored once after", async () => {
    const runs = await loads();
    const acked = () => runs.reduce((sum, r) => sum + r.load.acked.size, 0);
    await moreAcks(runs.map((r) => r.load));
    const log = watchLog(f.central);
    server!.stop("immediate");
    await expect.poll(log, { timeout: 10_000 }).toMatch(/database connection lost: writes fail until it recovers/);
    // Answers for commits made just before the crash may still be on their way.
    await quietFor(500, "answers for commits made just before the crash come within this");
    const whileDown = acked();
    await quietFor(2_000, "nothing is acked while the database is down");
    expect(acked()).toBe(whileDown);
    server!.start();
    await moreAcks(
      runs.map((r) => r.load),
      20,
      30_000,
    );
    await expectStoredOnce(api, runs);
    await expect.poll(log, { timeout: 10_000 }).toMatch(/database available again/);
    for (const p of [f.central, ...f.adapters.values()]) expect(p.child.exitCode, p.name).toBeNull();
  }, 60_000);

  it("a slow database slows acknowledgements down but loses none, and the central node's memory stays bounded", async () => {
    const runs = await loads(16);
    await moreAcks(runs.map((r) => r.load));
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readStatus(f.central.child.pid!))?.[1]) * 1024;
    const rssBefore = rss();
    proxy.delayMs = 40;
    try {
      await moreAcks(
        runs.map((r) => r.load),
        50,
        30_000,
      );
      const metrics = await (await fetch(`${reachable(f.central.urls.api!)}/metrics`)).text();
      const queued = Number(/^iot_uplink_writer_queue (\d+)/m.exec(metrics)?.[1]);
      // Backpressure: the writer holds at most what the devices have in flight (32 lanes), never a growing backlog.
      expect(queued).toBeLessThanOrEqual(32);
      expect(rss() - rssBefore).toBeLessThan(100 * 1024 * 1024);
    } finally {
      proxy.delayMs = 0;
    }
    await expectStoredOnce(api, runs);
  }, 60_000);
});

function readStatus(pid: number): string {
  return readFileSync(`/proc/${pid}/status`, "utf8");
}
