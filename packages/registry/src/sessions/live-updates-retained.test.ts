import { afterAll, describe, expect, it } from "vitest";
import { writeRetained, type PushedRetained } from "../domain/retained.js";
import { engines } from "../store/test-engines.js";
import { LiveUpdates } from "./live-updates.js";
import { SessionTable, type AdapterLink } from "./session-table.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

function recordingLink(instanceId: string) {
  const pushed: Array<[number, string[]]> = [];
  const link: AdapterLink = {
    instanceId,
    protocol: 1,
    version: "t",
    attachedAt: 0,
    sendDownlink: () => {},
    kick: () => {},
    updatePolicies: () => {},
    updateSubscriptions: () => {},
    updateRetained: (id, retained: readonly PushedRetained[]) =>
      pushed.push([id, retained.map((m) => `${m.topic}=${Buffer.from(m.payload).toString()}`)]),
    updateTenantLimits: () => {},
  };
  return { link, pushed };
}

const session = (sessionId: string, deviceIntId: number) => ({
  sessionId,
  deviceIntId,
  tenantId: "t",
  clientIp: "",
  keepAlive: 0,
  openedAt: 0,
  credentialStamp: "",
});

describe.each(engines)("LiveUpdates of retained messages on $name", (engine) => {
  it("pushes a device's retained set to the adapters holding it, tells the other nodes, and catches up a pending session", async () => {
    const { store } = await engine.open();
    const sessions = new SessionTable();
    const live = new LiveUpdates(store.db, sessions);
    const remote: number[][] = [];
    live.remote = {
      policiesChanged: () => {},
      subscriptionsChanged: () => {},
      retainedChanged: (ids) => remote.push(ids),
      tenantLimitsChanged: () => {},
    };
    const a = recordingLink("a");
    sessions.attach(a.link);
    sessions.open("a", session("s1", 7));
    sessions.issued("s2", 8, "t");
    const write = (deviceIntId: number, payload: string) =>
      writeRetained(store.db, {
        tenantId: "t",
        deviceIntId,
        direction: "command",
        topic: "cfg",
        payload: Buffer.from(payload),
        qos: 1,
      });
    await write(7, "on");
    await write(8, "off");
    await live.retainedChanged([7, 8, 7]);
    expect(a.pushed).toEqual([[7, ["cfg=on"]]]);
    expect(remote).toEqual([[7, 8]]);
    // Device 8's session was pending: its SessionOpened finds the push it missed.
    expect([...(sessions.takePending("s2")?.stale ?? [])]).toEqual(["retained"]);
    sessions.open("a", session("s2", 8));
    await live.sessionsOpened([8], new Set(["retained"]));
    expect(a.pushed.at(-1)).toEqual([8, ["cfg=off"]]);
  });
});
