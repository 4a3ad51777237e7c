import { describe, expect, it } from "vitest";
import { LiveSessions } from "./live-sessions.js";
import type { DeviceSession } from "./registry-client.js";

function session(sessionId: string, deviceIntId: number): DeviceSession {
  return {
    sessionId,
    device: {
      tenantId: "t1",
      deviceIntId,
      deviceId: `dev-${deviceIntId}`,
      deviceName: `device ${deviceIntId}`,
      productIntId: 1,
      productId: "p1",
      mountpoint: `t1/dev-${deviceIntId}/`,
      defaultDownlinkTopic: "inbox",
      deviceType: 1,
      isGateway: false,
    } as DeviceSession["device"],
    policies: [],
    subscriptions: [],
  };
}

const info = { clientIp: "10.0.0.1", keepAlive: 60 };
const ids = (live: LiveSessions, deviceIntId: number) => live.ofDevice(deviceIntId).map((l) => l.session.sessionId);

describe("LiveSessions", () => {
  it("finds a device's sessions, oldest first, and forgets each one closed", () => {
    const live = new LiveSessions();
    live.open(session("a", 1), info);
    live.open(session("b", 2), info);
    live.open(session("c", 1), info);
    expect(ids(live, 1)).toEqual(["a", "c"]);
    expect(ids(live, 2)).toEqual(["b"]);
    expect(live.close("a")).toBe(true);
    expect(live.close("a")).toBe(false);
    expect(ids(live, 1)).toEqual(["c"]);
    live.close("c");
    expect(ids(live, 1)).toEqual([]);
    expect(live.size).toBe(1);
  });

  it("keeps a session reopened under its id once, and moves it when the id now names another device", () => {
    const live = new LiveSessions();
    live.open(session("a", 1), info);
    live.open(session("b", 1), info);
    live.open(session("a", 1), { ...info, keepAlive: 30 });
    expect(ids(live, 1)).toEqual(["a", "b"]);
    expect(live.ofDevice(1)[0]!.info.keepAlive).toBe(30);
    live.open(session("a", 2), info);
    expect(ids(live, 1)).toEqual(["b"]);
    expect(ids(live, 2)).toEqual(["a"]);
  });

  it("applies a device's policies and subscriptions to its sessions alone, the sleeping flag kept apart", () => {
    const live = new LiveSessions();
    live.open(session("a", 1), info);
    live.open(session("b", 2), info);
    expect(live.setSleeping("a", true)).toBe(true);
    const rule = { id: 7, topic: "x/#", access: 3 as const, allow: true };
    expect(live.applyPolicies(1, [rule])).toBe(1);
    expect(live.get("a")!.session.policies).toEqual([rule]);
    expect(live.get("a")!.info.sleeping).toBe(true);
    expect(live.get("b")!.session.policies).toEqual([]);
    expect(live.applySubscriptions(2, [{ topic: "y", qos: 1 }])).toEqual([]);
    expect(live.applySubscriptions(2, [])).toEqual([{ topic: "y", qos: 1 }]);
    expect(live.applyPolicies(3, [rule])).toBe(0);
  });

  it("answers a push to each of 20,000 devices, as after a Hello", () => {
    // 20,000 sessions and a push to each device, as after a Hello: the old scan made this 400 million visits.
    const live = new LiveSessions();
    const n = 20_000;
    for (let i = 0; i < n; i++) live.open(session(`s${i}`, i), info);
    let changed = 0;
    for (let i = 0; i < n; i++)
      changed += live.applyPolicies(i, []) + (live.applySubscriptions(i, []).length === 0 ? 1 : 0);
    expect(changed).toBe(2 * n);
    expect(live.all()).toHaveLength(n);
  });
});
