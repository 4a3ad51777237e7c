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
    updateRetained: () => {},
    updateTenantLimits: () => {},
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

  it("keeps each pending session's missed pushes, kicks and tenant count apart among 20,000 others", () => {
    const table = new SessionTable();
    const n = 20_000;
    for (let i = 0; i < n; i++) table.issued(`s${i}`, i, i % 2 === 0 ? "even" : "odd", 1_000);
    table.issued("again", 4, "even", 1_000);
    for (let i = 0; i < n; i += 2) table.markStale(i, "policies");
    for (let i = 1; i < n; i += 1_000) table.kick(i, "blocked");
    expect(table.admits("odd", -1, n / 2 + 1, 2_000)).toBe(true);
    expect(table.admits("odd", -1, n / 2, 2_000)).toBe(false);
    expect([...table.takePending("again")!.stale]).toEqual(["policies"]);
    let stale = 0;
    let revoked = 0;
    for (let i = 0; i < n; i++) {
      const p = table.takePending(`s${i}`)!;
      stale += p.stale.size;
      if (p.revoked) revoked++;
    }
    expect([stale, revoked]).toEqual([n / 2, n / 1_000]);
    expect(table.admits("odd", -1, 1, 2_000)).toBe(true);
  });

  it("forgets sessions that were never reported open after a minute", () => {
    const table = new SessionTable();
    table.issued("old", 7, "", 0);
    table.issued("new", 7, "", 61_000);
    expect(table.takePending("old")).toBeUndefined();
    expect(table.takePending("new")).toBeDefined();
  });

  describe("tenant connection limit", () => {
    const other = (sessionId: string, deviceIntId: number) => ({ ...session(sessionId, deviceIntId), tenantId: "u" });

    it("counts each tenant's connected devices, not other tenants' or a device's second session", () => {
      const table = new SessionTable();
      table.attach(recordingLink("a").link);
      table.open("a", session("s1", 1));
      table.open("a", session("s1b", 1));
      table.open("a", session("s2", 2));
      table.open("a", other("s3", 3));
      expect([...table.tenantConnections("t")].sort()).toEqual([1, 2]);
      expect([...table.tenantConnections("u")]).toEqual([3]);
      expect(table.admits("t", 9, 2)).toBe(false);
      expect(table.admits("t", 9, 3)).toBe(true);
      expect(table.admits("u", 9, 2)).toBe(true);
    });

    it("lets a connected device reconnect at the limit, and always admits with limit 0 (unlimited)", () => {
      const table = new SessionTable();
      table.attach(recordingLink("a").link);
      table.open("a", session("s1", 1));
      expect(table.admits("t", 1, 1)).toBe(true);
      expect(table.admits("t", 2, 1)).toBe(false);
      expect(table.admits("t", 2, 0)).toBe(true);
    });

    it("counts sessions authenticated but not open yet for ten seconds, then frees their place", () => {
      const table = new SessionTable();
      table.issued("p1", 5, "t", 1_000);
      expect(table.admits("t", 6, 1, 2_000)).toBe(false);
      expect(table.admits("t", 6, 1, 11_001)).toBe(true);
    });

    it("counts a device once whether it is live, pending, or both, and lets a pending device in at the limit", () => {
      const table = new SessionTable();
      table.attach(recordingLink("a").link);
      table.open("a", session("s1", 1));
      table.issued("p1", 1, "t", 1_000); // device 1 again, not open yet
      table.issued("p2", 2, "t", 1_000);
      table.issued("p3", 2, "t", 1_000);
      expect([...table.tenantConnections("t", 2_000)].sort()).toEqual([1, 2]);
      expect(table.admits("t", 3, 2, 2_000)).toBe(false);
      expect(table.admits("t", 3, 3, 2_000)).toBe(true);
      expect(table.admits("t", 2, 2, 2_000)).toBe(true);
      expect(table.admits("t", 1, 2, 2_000)).toBe(true);
    });

    it("frees a place when the session closes or its adapter detaches", () => {
      const table = new SessionTable();
      const a = recordingLink("a");
      table.attach(a.link);
      table.open("a", session("s1", 1));
      table.open("a", session("s2", 2));
      table.close("a", "s1");
      expect([...table.tenantConnections("t")]).toEqual([2]);
      table.detach(a.link);
      expect(table.tenantConnections("t").size).toBe(0);
    });
  });
});
