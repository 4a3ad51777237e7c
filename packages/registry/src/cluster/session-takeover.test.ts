import { describe, expect, it } from "vitest";
import { replacedSessions, type HeldSession } from "./session-takeover.js";

const held = (over: Partial<HeldSession> & Pick<HeldSession, "sessionId">): HeldSession => ({
  deviceIntId: 7,
  nodeId: "a",
  instanceId: "mqtt-a",
  openedAt: 1_000,
  protocol: 1,
  ...over,
});

describe("replacedSessions", () => {
  it("replaces the older MQTT session of a device seen through two nodes, keeping the newest", () => {
    const old = held({ sessionId: "s1", openedAt: 1_000 });
    const fresh = held({ sessionId: "s2", nodeId: "b", instanceId: "mqtt-b", openedAt: 1_005 });
    expect(replacedSessions([fresh, old])).toEqual([{ deviceIntId: 7, sessionId: "s1", nodeId: "a" }]);
  });

  it("picks the same survivor whichever node decides, breaking a tie on the session id", () => {
    const x = held({ sessionId: "s-x", openedAt: 1_000 });
    const y = held({ sessionId: "s-y", nodeId: "b", instanceId: "mqtt-b", openedAt: 1_000 });
    expect(replacedSessions([x, y])).toEqual(replacedSessions([y, x]));
    expect(replacedSessions([x, y])).toEqual([{ deviceIntId: 7, sessionId: "s-x", nodeId: "a" }]);
  });

  it("leaves sessions on the same adapter to the adapter, other devices alone, and connectionless protocols be", () => {
    const sameAdapter = [held({ sessionId: "s1" }), held({ sessionId: "s2", openedAt: 2_000 })];
    expect(replacedSessions(sameAdapter)).toEqual([]);
    const twoDevices = [held({ sessionId: "s1" }), held({ sessionId: "s2", deviceIntId: 8, instanceId: "mqtt-b" })];
    expect(replacedSessions(twoDevices)).toEqual([]);
    // HTTP (5) and CoAP (2) devices may hold a lease on several adapters behind a load balancer.
    const http = [held({ sessionId: "h1", protocol: 5 }), held({ sessionId: "h2", protocol: 5, instanceId: "http-b" })];
    expect(replacedSessions(http)).toEqual([]);
    // One MQTT and one LwM2M session of one device are different connections, not a race.
    const mixed = [held({ sessionId: "m1" }), held({ sessionId: "l1", protocol: 3, instanceId: "lwm2m-b" })];
    expect(replacedSessions(mixed)).toEqual([]);
  });

  it("replaces every older session of a device seen through three adapters", () => {
    const rows = [
      held({ sessionId: "s1", openedAt: 1_000 }),
      held({ sessionId: "s2", nodeId: "b", instanceId: "mqtt-b", openedAt: 3_000 }),
      held({ sessionId: "s3", nodeId: "c", instanceId: "mqtt-c", openedAt: 2_000 }),
    ];
    expect(replacedSessions(rows).map((r) => r.sessionId)).toEqual(["s1", "s3"]);
  });
});
