import { afterAll, afterEach, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { SessionWrites } from "./mqtt-session-writes.js";
import { openSessions, updateSession } from "./mqtt-sessions.js";

const NOW = Date.UTC(2026, 11, 1);

describe.each(engines)("persistent MQTT session writes on $name", (engine) => {
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  it("writes what is queued together in the order it was queued, a session's end after its subscriptions", async () => {
    const { store } = await engine.open();
    const writes = new SessionWrites(store.db);
    const run = (w: Parameters<SessionWrites["run"]>[0]) => writes.run(w);
    const ask = { deviceIntId: 1, clientId: "d1", sessionId: "s1", cleanStart: false, expiryInterval: 30 };
    await openSessions(store.db, [ask], NOW, run);
    const update = { sessionId: "s1", deviceIntId: 1, clientId: "d1", expiryInterval: 30, atMs: NOW };
    const inbox = [{ topic: "inbox", qos: 1 }];
    await Promise.all([
      writes.run((tx) => updateSession(tx, { ...update, subscriptions: [], ended: false })),
      writes.run((tx) => updateSession(tx, { ...update, subscriptions: inbox, ended: false })),
      writes.run((tx) => updateSession(tx, { ...update, subscriptions: inbox, ended: true })),
    ]);
    const row = await store.db.selectFrom("mqttSessions").selectAll().executeTakeFirstOrThrow();
    expect([row.subscriptions, Number(row.expiresAt)]).toEqual([JSON.stringify(inbox), NOW + 30_000]);
    // A connection that resumes the session within its interval finds it.
    const [resumed] = await openSessions(store.db, [{ ...ask, sessionId: "s2" }], NOW + 29_000, run);
    expect(resumed).toEqual({ present: true, subscriptions: inbox });
    await writes.idle();
  });
});
