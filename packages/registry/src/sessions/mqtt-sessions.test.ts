import { afterAll, afterEach, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { openSessions, SESSION_NEVER_EXPIRES, sweepExpiredSessions, updateSession } from "./mqtt-sessions.js";

const NOW = Date.UTC(2026, 11, 1);
const inbox = [{ topic: "inbox", qos: 1 }];
const v5Options = [{ topic: "cmd/+", qos: 2, noLocal: true, retainHandling: 2, subscriptionIdentifier: 7 }];

describe.each(engines)("persistent MQTT sessions on $name", (engine) => {
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  const ask = (sessionId: string, cleanStart: boolean, expiryInterval: number, deviceIntId = 1) => ({
    deviceIntId,
    clientId: `dev-${deviceIntId}`,
    sessionId,
    cleanStart,
    expiryInterval,
  });
  const stored = (sessionId: string, subscriptions: typeof inbox, ended = false, expiryInterval = 60) => ({
    sessionId,
    deviceIntId: 1,
    clientId: "dev-1",
    subscriptions,
    expiryInterval,
    ended,
    atMs: NOW,
  });

  it("resumes a session's subscriptions, with their 5.0 options, on a later connect that does not start clean", async () => {
    const { store } = await engine.open();
    expect(await openSessions(store.db, [ask("s1", false, 60)], NOW)).toEqual([{ present: false, subscriptions: [] }]);
    await updateSession(store.db, stored("s1", [...inbox, ...v5Options]));
    await updateSession(store.db, stored("s1", [...inbox, ...v5Options], true));
    const [resumed] = await openSessions(store.db, [ask("s2", false, 60)], NOW + 1000);
    expect(resumed).toEqual({ present: true, subscriptions: [...inbox, ...v5Options] });
  });

  it("ignores an update from a connection the session was taken over from", async () => {
    const { store } = await engine.open();
    await openSessions(store.db, [ask("old", false, 60)], NOW);
    await openSessions(store.db, [ask("new", false, 60)], NOW);
    await updateSession(store.db, stored("new", inbox));
    // The replaced connection ends late, with what it had: the session stays the new connection's, unexpiring.
    await updateSession(store.db, stored("old", [], true, 1));
    const [resumed] = await openSessions(store.db, [ask("third", false, 60)], NOW + 5_000);
    expect(resumed).toEqual({ present: true, subscriptions: inbox });
  });

  it("expires a session its interval after its connection ended, and the sweep deletes it", async () => {
    const { store } = await engine.open();
    await openSessions(store.db, [ask("s1", false, 10), ask("n1", false, SESSION_NEVER_EXPIRES, 2)], NOW);
    await updateSession(store.db, stored("s1", inbox, true, 10));
    await updateSession(store.db, {
      ...stored("n1", inbox, true, SESSION_NEVER_EXPIRES),
      deviceIntId: 2,
      clientId: "dev-2",
    });
    expect(await sweepExpiredSessions(store.db, NOW + 9_999)).toBe(0);
    expect(await sweepExpiredSessions(store.db, NOW + 10_000)).toBe(1);
    const later = NOW + 86_400_000;
    expect(await openSessions(store.db, [ask("s2", false, 10), ask("n2", false, 10, 2)], later)).toEqual([
      { present: false, subscriptions: [] },
      { present: true, subscriptions: inbox },
    ]);
  });

  it("treats an expired session that was not swept yet as gone", async () => {
    const { store } = await engine.open();
    await openSessions(store.db, [ask("s1", false, 10)], NOW);
    await updateSession(store.db, stored("s1", inbox, true, 10));
    expect(await openSessions(store.db, [ask("s2", false, 10)], NOW + 10_000)).toEqual([
      { present: false, subscriptions: [] },
    ]);
  });

  it("drops the stored session on a Clean Start, and keeps none for a session that ends with its connection", async () => {
    const { store } = await engine.open();
    await openSessions(store.db, [ask("s1", false, 60)], NOW);
    await updateSession(store.db, stored("s1", inbox));
    expect(await openSessions(store.db, [ask("s2", true, 60)], NOW)).toEqual([{ present: false, subscriptions: [] }]);
    expect(await openSessions(store.db, [ask("s3", false, 60)], NOW)).toEqual([{ present: true, subscriptions: [] }]);
    await updateSession(store.db, stored("s3", inbox));
    // Resumed by a connection whose session ends with it (5.0, interval 0): answered, then gone.
    expect(await openSessions(store.db, [ask("s4", false, 0)], NOW)).toEqual([{ present: true, subscriptions: inbox }]);
    expect(await openSessions(store.db, [ask("s5", false, 60)], NOW)).toEqual([{ present: false, subscriptions: [] }]);
    // A DISCONNECT that sets the interval to 0 ends the session at once.
    await updateSession(store.db, stored("s5", inbox, true, 0));
    expect(await openSessions(store.db, [ask("s6", false, 60)], NOW)).toEqual([{ present: false, subscriptions: [] }]);
  });

  it("drops a stored session for a clean session that ends with its connection (3.1.1 clean session 1)", async () => {
    const { store } = await engine.open();
    expect(await openSessions(store.db, [ask("c1", true, 0)], NOW)).toEqual([{ present: false, subscriptions: [] }]);
    await openSessions(store.db, [ask("s1", false, SESSION_NEVER_EXPIRES)], NOW);
    await updateSession(store.db, stored("s1", inbox, true, SESSION_NEVER_EXPIRES));
    expect(await openSessions(store.db, [ask("c2", true, 0)], NOW)).toEqual([{ present: false, subscriptions: [] }]);
    expect(await store.db.selectFrom("mqttSessions").selectAll().execute()).toEqual([]);
  });
});
