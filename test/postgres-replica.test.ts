/**
 * Read replicas (IOT_DATABASE_READ_URL) against a real streaming replica made on this machine (test/private-replica.ts:
 * a private primary and a `pg_basebackup -R` copy of it on another port). With the replica's replay paused, a device
 * the admin just created shows in the admin's own list at once (read-your-writes: the primary) while another user's
 * list, served by the paused replica, lacks it until replay resumes; the lag shows in /health and /metrics; and with
 * the replica stopped, reads go to the primary without an error, the fault logged once.
 */
import pg from "pg";
import { openRegistryStore } from "@iot/registry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./helpers.js";
import { postgresBin } from "./private-postgres.js";
import { startReplicaPair, type ReplicaPair } from "./private-replica.js";

const bin = postgresBin();
/** CI installs PostgreSQL: there a missing server is a failure, elsewhere the tests say why they did not run. */
const canRun = bin !== undefined || process.env.CI === "true";
if (!canRun) console.warn("SKIPPED the read replica tests: no PostgreSQL server under /usr/lib/postgresql");

let pair: ReplicaPair | undefined;
let t: TestFleet;
let replicaAdmin: pg.Client;
/** Bearer token of a second user of the admin's tenant, who never writes. */
let viewerToken = "";
let productID = "";

beforeAll(async () => {
  if (!canRun) return;
  if (!bin) throw new Error("CI=true but no PostgreSQL server under /usr/lib/postgresql (initdb, pg_ctl)");
  pair = await startReplicaPair(bin);
  t = await startTestFleet(
    { IOT_DATABASE_URL: pair.primary.url, IOT_DATABASE_READ_URL: pair.replica.url, IOT_DATABASE_READ_MAX_LAG: "120" },
    { adapters: [] },
  );
  productID = (await t.api("POST", "/products", { productName: "replica", cloudProtocol: 1 })).body.productID;
  replicaAdmin = new pg.Client({ connectionString: pair.replica.url });
  await replicaAdmin.connect();
  const user = await t.api("POST", "/users", { username: "viewer1", password: "viewer-pass-1", role: "viewer" });
  expect(user.status).toBe(201);
  const login = await fetch(`${t.apiUrl}/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "viewer1", password: "viewer-pass-1" }),
  });
  viewerToken = ((await login.json()) as { token: string }).token;
}, 120_000);
afterAll(async () => {
  await replicaAdmin?.end().catch(() => {});
  await t?.close();
  pair?.destroy();
});

/** The viewer's GET of `path` under /api/v1. */
async function asViewer(path: string): Promise<{ status: number; body: { items?: { deviceName: string }[] } }> {
  const res = await fetch(`${t.apiUrl}${path}`, { headers: { authorization: `Bearer ${viewerToken}` } });
  return { status: res.status, body: (await res.json()) as { items?: { deviceName: string }[] } };
}

/** Pauses the replica's replay and waits until it stands still (a pause is a request the startup process obeys). */
async function pauseReplay(): Promise<void> {
  await replicaAdmin.query("select pg_wal_replay_pause()");
  await expect
    .poll(async () => (await replicaAdmin.query("select pg_get_wal_replay_pause_state() as s")).rows[0].s, {
      timeout: 10_000,
    })
    .toBe("paused");
}

const names = (body: { items?: { deviceName: string }[] }) => (body.items ?? []).map((d) => d.deviceName);

interface ReplicaHealth {
  name: string;
  state: string;
  lagSeconds?: number;
  lagBytes?: number;
  error?: string;
}
const health = async () => (await t.api("GET", "/health")).body as { status: string; replicas: ReplicaHealth[] };

/** The value of `iot_database_replica_<metric>` for the one replica, from /metrics. */
async function lagMetric(metric: "lag_seconds" | "lag_bytes" | "up"): Promise<number | undefined> {
  const text = await (await fetch(`${t.apiUrl.replace(/\/api\/v1$/, "")}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`iot_database_replica_${metric}{`));
  return line === undefined ? undefined : Number(line.split(" ").at(-1));
}

describe.runIf(canRun)("reads off the primary (IOT_DATABASE_READ_URL)", () => {
  it("health shows the replica serving reads with no lag once it has caught up", async () => {
    await expect
      .poll(async () => (await health()).replicas, { timeout: 15_000 })
      .toMatchObject([{ state: "up", lagBytes: 0, lagSeconds: 0 }]);
    expect((await health()).replicas[0]!.name).toBe(`127.0.0.1:${pair!.replica.port}`);
    expect(await lagMetric("up")).toBe(1);
  });

  it("with replay paused, the writer reads its new device at once and another user's list lacks it until replay resumes", async () => {
    await pauseReplay();
    try {
      expect((await t.newDevice(productID, "replica-rw-1")).id).toBeGreaterThan(0);
      // The admin wrote: its list goes to the primary until the replica has replayed the write.
      const own = await t.api("GET", "/devices?deviceName_like=replica-rw");
      expect(own.status).toBe(200);
      expect(names(own.body)).toEqual(["replica-rw-1"]);
      // The viewer never wrote: its list comes from the paused replica, which has not seen the device.
      const other = await asViewer("/devices?deviceName_like=replica-rw");
      expect(other.status).toBe(200);
      expect(names(other.body)).toEqual([]);
      // The lag shows while the replica stands still and the primary moves on.
      await expect.poll(async () => (await health()).replicas[0]!.lagBytes, { timeout: 10_000 }).toBeGreaterThan(0);
      await expect.poll(() => lagMetric("lag_seconds"), { timeout: 10_000 }).toBeGreaterThan(0);
      expect(await lagMetric("lag_bytes")).toBeGreaterThan(0);
      expect((await health()).replicas[0]!.state).toBe("up");
    } finally {
      await replicaAdmin.query("select pg_wal_replay_resume()");
    }
    await expect
      .poll(async () => names((await asViewer("/devices?deviceName_like=replica-rw")).body), { timeout: 10_000 })
      .toEqual(["replica-rw-1"]);
    await expect.poll(async () => (await health()).replicas[0]!.lagBytes, { timeout: 10_000 }).toBe(0);
  });

  it("the device's history reads and the account-wide logs answer from the replica too", async () => {
    const d = await t.newDevice(productID, "replica-logs-1");
    await expect
      .poll(async () => names((await asViewer("/devices?deviceName_like=replica-logs")).body), { timeout: 10_000 })
      .toEqual(["replica-logs-1"]);
    for (const path of [
      `/devices/${d.id}/events`,
      `/devices/${d.id}/connect_logs`,
      `/devices/${d.id}/control_logs`,
      "/device_events",
      "/device_connect_logs",
      "/device_control_logs",
      "/metrics",
    ]) {
      expect((await asViewer(path)).status, path).toBe(200);
    }
  });

  it("a replica further behind than IOT_DATABASE_READ_MAX_LAG is skipped, logged once, and serves again once caught up", async () => {
    const logs: string[] = [];
    const store = await openRegistryStore({
      databaseUrl: pair!.primary.url,
      dataDir: "",
      reads: { urls: [pair!.replica.url], maxLagSeconds: 1, pollMs: 100, log: (_l, m) => logs.push(m) },
    });
    const reads = store.reads!;
    const countNamed = (name: string) =>
      reads.read(undefined, (db) =>
        db
          .selectFrom("devices")
          .select("id")
          .where("deviceName", "=", name)
          .execute()
          .then((rows) => rows.length),
      );
    try {
      await expect.poll(() => reads.status()[0]!.state, { timeout: 10_000 }).toBe("up");
      await pauseReplay();
      try {
        await t.newDevice(productID, "replica-lag-1");
        // The central node's heartbeats keep the primary moving: the paused replica falls behind past the bound.
        await expect.poll(() => reads.status()[0]!.state, { timeout: 15_000 }).toBe("lagging");
        expect(await countNamed("replica-lag-1")).toBe(1); // from the primary
        await reads.poll();
        expect(logs.filter((l) => l.includes("behind the primary"))).toHaveLength(1);
      } finally {
        await replicaAdmin.query("select pg_wal_replay_resume()");
      }
      await expect.poll(() => reads.status()[0]!.state, { timeout: 10_000 }).toBe("up");
      expect(await countNamed("replica-lag-1")).toBe(1);
    } finally {
      await store.close();
    }
  }, 40_000);

  it("with the replica stopped, reads go to the primary without an error and the fault is logged once", async () => {
    await replicaAdmin.end();
    pair!.replica.stop("immediate");
    expect((await t.newDevice(productID, "replica-down-1")).id).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) {
      const r = await asViewer("/devices?deviceName_like=replica-down");
      expect(r.status).toBe(200);
      expect(names(r.body)).toEqual(["replica-down-1"]);
    }
    await expect.poll(async () => (await health()).replicas[0]!.state, { timeout: 10_000 }).toBe("down");
    const h = await health();
    expect(h.status).toBe("ok");
    expect(h.replicas[0]!.error).toBeTruthy();
    expect(await lagMetric("up")).toBe(0);
    const skipped = t.fleet.central.errors.filter((l) => l.includes("read replica") && l.includes("skipped"));
    expect(skipped).toHaveLength(1);
    // Back: the replica serves reads again.
    pair!.replica.start();
    await expect.poll(async () => (await health()).replicas[0]!.state, { timeout: 20_000 }).toBe("up");
  }, 60_000);
});
