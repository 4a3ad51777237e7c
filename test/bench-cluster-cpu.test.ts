import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { postgresEngine } from "@iot/registry/test-engines";
import { PgServer, Pinning, serverCpu, splitCores } from "../bench/cluster-cpu.js";
import { databaseCeiling, modelTable, nodesCeiling } from "../bench/cluster-model.js";

const affinity = (pid: number) =>
  /mask: ([0-9a-f]+)/.exec(execFileSync("taskset", ["-p", `${pid}`], { encoding: "utf8" }))![1];

describe("bench:cluster's capacity model", () => {
  const costs = { central: 3, centralLoop: 2, adapter: 1, adapterLoop: 1, database: 0.5 };

  it("gives N nodes N times one node's ceiling, bound by its cores or by its busiest event loop", () => {
    // 1 core: 10,000 / (3 + 1) s = 2,500/s; 4 cores would allow 10,000/s, but the central's loop 10,000 / 2 s: 5,000/s.
    expect(nodesCeiling(costs, 1, 1)).toEqual({ rate: 2_500, bound: "node cores" });
    expect(nodesCeiling(costs, 4, 4)).toEqual({ rate: 20_000, bound: "central loop" });
    expect(nodesCeiling({ ...costs, adapterLoop: 4 }, 2, 8)).toEqual({ rate: 5_000, bound: "adapter loop" });
    expect(databaseCeiling(costs, 8)).toBe(160_000);
  });

  it("tables the minimum of the nodes' and the database's ceilings, naming the bound", () => {
    const table = modelTable({ ...costs, database: 5 }, 4);
    expect(table[1]).toMatch(/^N=1\s+4,000 d\s+5,000 n\s+5,000 n\s+5,000 n$/);
    expect(table[4]).toMatch(/^N=8\s+4,000 d\s+8,000 d\s+16,000 d\s+32,000 d$/);
    expect(table[5]).toContain("central loop");
  });
});

describe("bench:cluster's CPU accounting", () => {
  it("charges a run its database's backends and the shared processes by its backends' share", () => {
    const at = (cpu: number[]) => ({
      cluster: cpu.reduce((a, b) => a + b, 0),
      processes: [
        { pid: 1, datname: "run", backendType: "client backend", cpu: cpu[0]! },
        { pid: 2, datname: "other", backendType: "client backend", cpu: cpu[1]! },
        { pid: 3, datname: null, backendType: "walwriter", cpu: cpu[2]! },
        { pid: 4, datname: null, backendType: "postmaster", cpu: cpu[3]! },
      ],
    });
    const cpu = serverCpu(at([1, 1, 1, 1]), at([4, 2, 3, 2]), "run");
    expect(cpu).toEqual({ backends: 3, allBackends: 4, shared: 3, run: 3 + (3 * 3) / 4, cluster: 7, ended: 0 });
    // A backend that ended in the window counts up to its last sample, and is counted as ended.
    const after = at([4, 2, 3, 2]);
    after.processes.push({ pid: 5, datname: "run", backendType: "client backend", cpu: 1, gone: true } as never);
    expect(serverCpu(at([1, 1, 1, 1]), after, "run")).toMatchObject({ backends: 4, ended: 1 });
  });

  it.runIf(postgresEngine)("reads the server's processes, its postmaster among them, from /proc", async () => {
    const server = await PgServer.open(postgresEngine!.url!);
    try {
      expect(server.postmaster).toBeGreaterThan(1);
      const watching = server.watch(20);
      const reading = await watching.stop();
      expect(reading.processes.some((p) => p.backendType === "postmaster" && p.pid === server.postmaster)).toBe(true);
      expect(reading.cluster).toBeGreaterThanOrEqual(reading.processes.reduce((s, p) => s + p.cpu, 0) - 0.01);
    } finally {
      await server.close();
    }
  });

  it.runIf(availableParallelism() >= 2)("pins a process to its cores and puts its mask back", async () => {
    const child = spawn("sleep", ["30"]);
    try {
      const before = affinity(child.pid!);
      const pinning = new Pinning();
      pinning.pin([child.pid], splitCores()!.database);
      expect(affinity(child.pid!)).not.toBe(before);
      pinning.restore();
      expect(affinity(child.pid!)).toBe(before);
    } finally {
      child.kill();
      await once(child, "exit");
    }
  });
});
