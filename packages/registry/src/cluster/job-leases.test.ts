import pino from "pino";
import { quietFor } from "@iot/config/testing";
import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { JobLeases } from "./job-leases.js";

const logger = pino({ level: "silent" });

/** A job that records its runs: `running` while started and not stopped. */
function probe() {
  const state = { starts: 0, running: false };
  return {
    state,
    factory: () => {
      state.starts++;
      state.running = true;
      return { stop: async () => void (state.running = false) };
    },
  };
}

afterAll(() => Promise.all(engines.map((e) => e.cleanup())));

describe.each(engines)("singleton job leases ($name)", (engine) => {
  it("runs a job on one of two nodes only, and hands it over at once when that node stops cleanly", async () => {
    const { store } = await engine.open();
    const [one, two] = [probe(), probe()];
    const a = new JobLeases(store.db, "node-a", true, logger, { ttlMs: 5_000, renewMs: 50 });
    const b = new JobLeases(store.db, "node-b", true, logger, { ttlMs: 5_000, renewMs: 50 });
    a.add("schedules", one.factory);
    b.add("schedules", two.factory);
    await a.start();
    await b.start();
    await expect.poll(() => a.held()).toEqual(["schedules"]);
    await quietFor(150, "node b renews every 50 ms: it would take the held lease within this");
    expect([one.state.running, two.state.running, a.held(), b.held()]).toEqual([true, false, ["schedules"], []]);
    await a.stop();
    expect(one.state.running).toBe(false);
    await expect.poll(() => b.held()).toEqual(["schedules"]);
    expect(two.state).toEqual({ starts: 1, running: true });
    await b.stop();
  });

  it("takes over the job of a node that died once its lease expired, not before", async () => {
    const { store } = await engine.open();
    const now = Date.now();
    // A dead node's lease, still valid for 300 ms.
    await store.db
      .insertInto("clusterLeases")
      .values({ name: "retention", nodeId: "dead", expiresAt: now + 300 })
      .execute();
    const job = probe();
    const leases = new JobLeases(store.db, "node-c", true, logger, { ttlMs: 5_000, renewMs: 50 });
    leases.add("retention", job.factory);
    await leases.start();
    expect(job.state.running).toBe(false);
    await expect.poll(() => job.state.running, { timeout: 2_000 }).toBe(true);
    expect(Date.now() - now).toBeGreaterThanOrEqual(300);
    const row = await store.db.selectFrom("clusterLeases").selectAll().executeTakeFirstOrThrow();
    expect(row.nodeId).toBe("node-c");
    await leases.stop();
    expect(await store.db.selectFrom("clusterLeases").selectAll().execute()).toEqual([]);
  });

  it("stops a job whose lease another node took (this node could not renew in time)", async () => {
    const { store } = await engine.open();
    const job = probe();
    const leases = new JobLeases(store.db, "node-d", true, logger, { ttlMs: 5_000, renewMs: 50 });
    leases.add("webhooks", job.factory);
    await leases.start();
    expect(job.state.running).toBe(true);
    await store.db
      .updateTable("clusterLeases")
      .set({ nodeId: "node-e", expiresAt: Date.now() + 60_000 })
      .execute();
    await expect.poll(() => job.state.running).toBe(false);
    expect(leases.held()).toEqual([]);
    await leases.stop();
  });

  it("runs every job from start to stop without touching the database when not shared (one SQLite node)", async () => {
    const { store } = await engine.open();
    const job = probe();
    const leases = new JobLeases(store.db, "solo", false, logger);
    leases.add("schedules", job.factory);
    await leases.start();
    expect([job.state.running, leases.held()]).toEqual([true, ["schedules"]]);
    await leases.stop();
    expect(job.state.running).toBe(false);
    expect(await store.db.selectFrom("clusterLeases").selectAll().execute()).toEqual([]);
  });
});
