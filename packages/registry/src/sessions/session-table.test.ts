import { describe, expect, it } from "vitest";
import { SessionTable, type AdapterLink } from "./session-table.js";

function recordingLink(instanceId: string) {
  const kicks: Array<[number, string]> = [];
  const link: AdapterLink = {
    instanceId,
    protocol: 1,
    version: "t",
    attachedAt: 0,
    sendDownlink: () => {},
    kick: (id, reason) => kicks.push([id, reason]),
    updatePolicies: () => {},
    updateSubscriptions: () => {},
  };
  return { link, kicks };
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

describe("SessionTable", () => {
  it("kicks every adapter holding a session of the device, and only those", () => {
    const table = new SessionTable();
    const a = recordingLink("a");
    const b = recordingLink("b");
    table.attach(a.link);
    table.attach(b.link);
    table.open("a", session("s1", 7));
    table.open("b", session("s2", 8));
    table.kick(7, "device blocked");
    expect(a.kicks).toEqual([[7, "device blocked"]]);
    expect(b.kicks).toEqual([]);
  });

  it("remembers a revocation made between a device's authentication and its SessionOpened", () => {
    const table = new SessionTable();
    table.issued("s1", 7);
    table.issued("s2", 8);
    table.kick(7, "token changed");
    expect(table.takePending("s1")).toMatchObject({ deviceIntId: 7, revoked: "token changed" });
    expect(table.takePending("s1")).toBeUndefined();
    expect(table.takePending("s2")?.revoked).toBeUndefined();
  });

  it("remembers which pushes a pending session missed", () => {
    const table = new SessionTable();
    table.issued("s1", 7);
    table.markStale(7, "policies");
    table.markStale(8, "subscriptions");
    expect([...table.takePending("s1")!.stale]).toEqual(["policies"]);
  });

  it("forgets sessions that were never reported open after a minute", () => {
    const table = new SessionTable();
    table.issued("old", 7, 0);
    table.issued("new", 7, 61_000);
    expect(table.takePending("old")).toBeUndefined();
    expect(table.takePending("new")).toBeDefined();
  });
});
