/**
 * bench:cluster's capacity model: from the CPU seconds each part spent per 10,000 uplinks, the ingest ceiling of N
 * central nodes (each a machine of K cores running a central node and its MQTT adapter) against one PostgreSQL
 * server of C cores:
 *
 *   node    ≈ min(K × 10,000 / (central + adapter), 10,000 / central loop, 10,000 / adapter loop)
 *   uplinks/s ≈ min(N × node, C × 10,000 / database)
 *
 * central, adapter and database are CPU seconds per 10,000 uplinks the part carries; a "loop" is the process's
 * busiest thread (its event loop), which one core bounds whatever K is. PostgreSQL is taken to use all C cores (it
 * does not quite: commits wait on one WAL flush at a time), so the database's ceiling is an upper bound; so is
 * every ceiling, which counts CPU alone (not the network, disk flushes or lock waits).
 */
import { printResult } from "./result.js";

/** CPU seconds per 10,000 uplinks a part carries (the whole process, and its busiest thread). */
export interface PartCosts {
  central: number;
  centralLoop: number;
  adapter: number;
  adapterLoop: number;
  database: number;
}

export const NODE_COUNTS = [1, 2, 4, 8] as const;
export const DATABASE_CORES = [2, 4, 8, 16] as const;

/** What runs out first on a node. */
export type NodeBound = "node cores" | "central loop" | "adapter loop";

/** Uplinks/s that `n` nodes of `cores` cores each can carry, and what runs out first. */
export function nodesCeiling(costs: PartCosts, n: number, cores: number): { rate: number; bound: NodeBound } {
  const options: [number, NodeBound][] = [
    [(cores * 10_000) / (costs.central + costs.adapter), "node cores"],
    [10_000 / costs.centralLoop, "central loop"],
    [10_000 / costs.adapterLoop, "adapter loop"],
  ];
  const [rate, bound] = options.reduce((a, b) => (b[0] < a[0] ? b : a));
  return { rate: n * rate, bound };
}

/** Uplinks/s one PostgreSQL server of `cores` cores can store. */
export const databaseCeiling = (costs: PartCosts, cores: number) => (cores * 10_000) / costs.database;

const rate = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "∞");

/** The model's table (rows N, columns C; each cell the ceiling and what bounds it: n the nodes, d the database). */
export function modelTable(costs: PartCosts, nodeCores: number): string[] {
  const head = `${"nodes \\ database cores".padEnd(24)}${DATABASE_CORES.map((c) => `C=${c}`.padStart(16)).join("")}`;
  const rows = NODE_COUNTS.map((n) => {
    const nodes = nodesCeiling(costs, n, nodeCores);
    const cells = DATABASE_CORES.map((c) => {
      const db = databaseCeiling(costs, c);
      const [value, bound] = db < nodes.rate ? [db, "d"] : [nodes.rate, "n"];
      return `${rate(value)} ${bound}`.padStart(16);
    });
    return `${`N=${n}`.padEnd(24)}${cells.join("")}`;
  });
  const bound = nodesCeiling(costs, 1, nodeCores).bound;
  return [head, ...rows, `(uplinks/s; n = the nodes run out first (their ${bound}), d = the database)`];
}

/** RESULT lines: the nodes' ceiling for each N and the database's for each C (the table is their minimum). */
export function printModelResults(costs: PartCosts, nodeCores: number, measured: string): void {
  for (const n of NODE_COUNTS) {
    const { rate: r, bound } = nodesCeiling(costs, n, nodeCores);
    printResult({
      measure: `projected ingest ceiling of ${n} node${n > 1 ? "s" : ""} of ${nodeCores} cores, central + MQTT adapter each (bound: ${bound}; database aside)`,
      figure: `${rate(r).replaceAll(",", "")} uplinks/s`,
      baseline: measured,
      ratio: null,
      goal: "",
      met: null,
    });
  }
  for (const c of DATABASE_CORES)
    printResult({
      measure: `projected ingest ceiling of one PostgreSQL of ${c} cores`,
      figure: `${rate(databaseCeiling(costs, c)).replaceAll(",", "")} uplinks/s`,
      baseline: measured,
      ratio: null,
      goal: "",
      met: null,
    });
}
