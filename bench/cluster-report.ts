/** bench:cluster's CPU figures per part, and the capacity model drawn from them (cluster-model.ts). */
import type { ProcessCpu, ServerCpu } from "./cluster-cpu.js";
import { modelTable, printModelResults, type PartCosts } from "./cluster-model.js";
import { printResult } from "./result.js";

/** CPU seconds each part spent over the ingest window, for `uplinks` uplinks. */
export interface CaseCpu {
  uplinks: number;
  /** The window's length, s. */
  seconds: number;
  /** This process (the devices' MQTT clients) and the whole machine (everyone's work), CPU s. */
  clients: number;
  machine: number | undefined;
  adapters: ProcessCpu[];
  centrals: ProcessCpu[];
  database: ServerCpu;
}

/** CPU seconds per 10,000 uplinks. */
const per10k = (seconds: number, c: CaseCpu) => (seconds * 10_000) / c.uplinks;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const s2 = (x: number) => x.toFixed(2);
const totals = (ps: ProcessCpu[]) => ps.map((p) => p.total);

/** Each part's CPU per uplink it carries: with the devices split evenly, the nodes' sum per uplink of the run. */
export const costsOf = (c: CaseCpu): PartCosts => ({
  central: per10k(sum(totals(c.centrals)), c),
  centralLoop: per10k(sum(c.centrals.map((p) => p.busiest)), c),
  adapter: per10k(sum(totals(c.adapters)), c),
  adapterLoop: per10k(sum(c.adapters.map((p) => p.busiest)), c),
  database: per10k(c.database.run, c),
});

/** The lines of one case's figures. */
function cpuLines(label: string, c: CaseCpu): string[] {
  const d = c.database;
  const cores = (x: number) => `[${(x / c.seconds).toFixed(2)}]`;
  const part = (name: string, ps: ProcessCpu[]) => {
    const each = ps.length > 1 ? ` (${ps.map((p) => s2(per10k(p.total, c))).join(" + ")})` : "";
    const loops = ps.map((p) => s2(per10k(p.busiest, c))).join(", ");
    return `${name} ${s2(per10k(sum(totals(ps)), c))}${each} ${cores(sum(totals(ps)))}, busiest thread ${loops}`;
  };
  const server = d.cluster ?? d.run;
  const ours = sum(totals(c.adapters)) + sum(totals(c.centrals)) + c.clients + server;
  const share = d.allBackends > 0 ? Math.round((100 * d.backends) / d.allBackends) : 0;
  return [
    `${label}: CPU seconds per 10,000 uplinks [cores used over the ${c.seconds.toFixed(1)} s window]`,
    `  ${part("MQTT adapters", c.adapters)}   ${part("central nodes", c.centrals)}`,
    d.cluster === undefined
      ? "  PostgreSQL unknown: the server is not on this machine (its processes' /proc is not here)"
      : `  PostgreSQL ${s2(per10k(d.run, c))}: the run's backends ${s2(per10k(d.backends, c))} + ${share} % of the shared processes' ${s2(per10k(d.shared, c))}` +
        `; whole server ${s2(per10k(d.cluster, c))} ${cores(d.cluster)}` +
        (d.ended > 0 ? ` (${d.ended} of the run's backends ended in the window: counted to their last sample)` : ""),
    `  the devices' clients (this process) ${s2(per10k(c.clients, c))} ${cores(c.clients)}; the machine busy ${c.machine === undefined ? "(unknown)" : `${cores(c.machine)} cores, others' work ${cores(Math.max(0, c.machine - ours))}`}`,
  ];
}

/** Prints both cases' figures, the model's table from the two-node case, and their RESULT lines. */
export function printCapacity(
  one: { cpu: CaseCpu },
  two: { cpu: CaseCpu },
  o: {
    pinned: { fleet: string; database: string } | undefined;
    statStatements: boolean;
    nodeCores: number;
    measured: string;
  },
): void {
  console.log(
    `CPU over the ingest window, from /proc; ${o.pinned ? `BENCH_PIN: fleet and clients on cores ${o.pinned.fleet}, PostgreSQL on ${o.pinned.database}` : "cores not split (BENCH_PIN=1 splits them)"}; pg_stat_statements ${o.statStatements ? "loaded (not used)" : "not loaded (not needed)"}`,
  );
  for (const line of [...cpuLines("one central node", one.cpu), ...cpuLines("two central nodes", two.cpu)])
    console.log(line);
  if (one.cpu.uplinks < 10_000) console.log("  (few uplinks: figures come in 10 ms clock ticks; give more messages)");
  // The model takes the two-node case's costs: a node in a cluster pays for sessions and routing across nodes.
  const model = costsOf(two.cpu);
  const single = costsOf(one.cpu);
  console.log(
    `capacity model, from the two-node case (per 10,000 uplinks a part carries: central ${s2(model.central)} s, its loop ${s2(model.centralLoop)} s; adapter ${s2(model.adapter)} s, its loop ${s2(model.adapterLoop)} s; PostgreSQL ${s2(model.database)} s), nodes of ${o.nodeCores} cores (BENCH_NODE_CORES):`,
  );
  console.log("  node ≈ min(K × 10,000 / (central + adapter), 10,000 / central loop, 10,000 / adapter loop)");
  console.log("  uplinks/s ≈ min(N × node, C × 10,000 / PostgreSQL)");
  for (const line of modelTable(model, o.nodeCores)) console.log(`  ${line}`);
  const parts: [string, keyof PartCosts][] = [
    ["central node", "central"],
    ["MQTT adapter", "adapter"],
    ["PostgreSQL", "database"],
  ];
  for (const [name, key] of parts)
    printResult({
      measure: `CPU seconds per 10,000 MQTT uplinks: ${name} (one central node${o.pinned ? ", cores split" : ""})`,
      figure: `${s2(single[key])} s`,
      baseline: `two nodes ${s2(model[key])} s`,
      ratio: model[key] / single[key],
      goal: "",
      met: null,
    });
  printModelResults(model, o.nodeCores, o.measured);
}
