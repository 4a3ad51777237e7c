import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { databaseLoginLimiter } from "./shared-rate-limit.js";

afterAll(() => Promise.all(engines.map((e) => e.cleanup())));

describe.each(engines)("failed logins counted in the database ($name)", (engine) => {
  it("blocks a key on every node once its failures on all of them reach the limit, until the oldest leaves", async () => {
    const { store } = await engine.open();
    let now = 1_000_000;
    const options = { maxFailures: 2, windowMs: 60_000, now: () => now };
    const [nodeA, nodeB] = [databaseLoginLimiter(store.db, options), databaseLoginLimiter(store.db, options)];
    await nodeA.fail(["user:x"]);
    expect(await nodeB.blockedFor(["user:x"])).toBe(0);
    now += 1_000;
    await nodeB.fail(["user:x", "ip:1"]);
    expect(await nodeA.blockedFor(["user:x"])).toBe(59_000);
    expect(await nodeB.blockedFor(["ip:1"])).toBe(0);
    now += 59_000;
    expect(await nodeA.blockedFor(["user:x"])).toBe(0);
  });

  it("takes back a forgiven attempt and forgets a reset key", async () => {
    const { store } = await engine.open();
    const limiter = databaseLoginLimiter(store.db, { maxFailures: 1, windowMs: 60_000 });
    const at = await limiter.fail(["user:y", "ip:2"]);
    expect(await limiter.blockedFor(["ip:2"])).toBeGreaterThan(0);
    await limiter.forgive(["ip:2"], at);
    expect(await limiter.blockedFor(["ip:2"])).toBe(0);
    expect(await limiter.blockedFor(["user:y"])).toBeGreaterThan(0);
    await limiter.reset("user:y");
    expect(await limiter.blockedFor(["user:y"])).toBe(0);
  });
});
