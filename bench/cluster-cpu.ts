/**
 * bench:cluster's CPU accounting and core pinning: what each part of a run (the MQTT adapters, each central node,
 * PostgreSQL) spent over the ingest window, read from /proc, and `taskset` to give the fleet and the database
 * cores of their own. PostgreSQL must run on this machine for its share (else it is reported unknown).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import pg from "pg";
import { childPids, cpuSeconds, cpuSecondsWithReaped, parentPid, threadCpuSeconds } from "./figures.js";

/**
 * PostgreSQL's processes that work for every database (WAL, checkpoints, dirty-page writes, autovacuum's launcher,
 * the postmaster): charged to a run by its backends' share of all backends' CPU over the window.
 */
const SHARED_TYPES = new Set([
  "walwriter",
  "checkpointer",
  "background writer",
  "autovacuum launcher",
  "logical replication launcher",
  "postmaster",
]);

/** The processes PostgreSQL's own view lists, with what they serve. */
interface ServerProcess {
  pid: number;
  datname: string | null;
  backendType: string;
}

/** One reading of the server: each process's CPU seconds so far, and the whole cluster's (ended children too). */
interface ServerReading {
  /** Each process's CPU so far; `gone` for one that ended before this reading (its CPU at its last sample). */
  processes: (ServerProcess & { cpu: number; gone?: boolean })[];
  cluster: number | undefined;
}

/** What PostgreSQL spent over a window, in CPU seconds. */
export interface ServerCpu {
  /** The backends (and autovacuum workers) of the run's database. */
  backends: number;
  /** Every backend of every database (the run's included). */
  allBackends: number;
  /** The shared processes (SHARED_TYPES), whole. */
  shared: number;
  /** The run's share: its backends plus the shared processes × backends / allBackends. */
  run: number;
  /** Every process of the server over the window (other databases' work included), when readable. */
  cluster: number | undefined;
  /**
   * Backends of the run's database that ended within the window: counted up to their last sample (watch()), so
   * their last moments are missing.
   */
  ended: number;
}

/** The PostgreSQL server of `url` as seen from /proc, for CPU readings and pinning; close() when done. */
export class PgServer {
  private constructor(
    private readonly client: pg.Client,
    readonly postmaster: number | undefined,
  ) {}

  /**
   * Connects (as the benchmark, application_name bench-cluster) and finds the postmaster (our backend's parent).
   * A server on another machine (our backend's pid is no postgres process here) has none: its CPU is unknown.
   */
  static async open(url: string): Promise<PgServer> {
    const client = new pg.Client({ connectionString: url, application_name: "bench-cluster" });
    await client.connect();
    const own = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
    let local = false;
    try {
      local = readFileSync(`/proc/${own}/cmdline`, "utf8").startsWith("postgres");
    } catch {
      // no such process here
    }
    return new PgServer(client, local ? parentPid(own) : undefined);
  }

  /** `shared_preload_libraries` includes pg_stat_statements (the run does not need it). */
  async hasStatStatements(): Promise<boolean> {
    const r = await this.client.query<{ v: string }>("select current_setting('shared_preload_libraries') as v");
    return /\bpg_stat_statements\b/.test(r.rows[0]!.v);
  }

  /** Every process pg_stat_activity lists (the postmaster added), with its CPU so far; `whole`: the cluster's too. */
  async read(whole = true): Promise<ServerReading> {
    const rows = (
      await this.client.query<{ pid: number; datname: string | null; backend_type: string }>(
        "select pid, datname, backend_type from pg_stat_activity",
      )
    ).rows.map((r) => ({ pid: r.pid, datname: r.datname, backendType: r.backend_type }));
    if (this.postmaster === undefined) return { processes: [], cluster: undefined }; // pids of another machine
    rows.push({ pid: this.postmaster, datname: null, backendType: "postmaster" });
    const processes = rows.flatMap((p) => {
      const cpu = cpuSeconds(p.pid);
      return cpu === undefined ? [] : [{ ...p, cpu }];
    });
    return { processes, cluster: whole ? this.clusterCpu() : undefined };
  }

  /**
   * Reads the server every `everyMs` until `stop()`, which answers a last reading with every process seen meanwhile:
   * a backend that ended in between (a pool closing an idle connection) keeps the CPU of its last sample, instead
   * of vanishing into the postmaster's count of reaped children.
   */
  watch(everyMs = 200): { stop(): Promise<ServerReading> } {
    const seen = new Map<number, ServerReading["processes"][number]>();
    const take = async () => {
      for (const p of (await this.read(false)).processes) seen.set(p.pid, p);
    };
    let pending = take();
    const timer = setInterval(() => {
      pending = pending.then(take, take);
    }, everyMs);
    return {
      stop: async () => {
        clearInterval(timer);
        await pending.catch(() => undefined);
        const last = await this.read();
        const live = new Set(last.processes.map((p) => p.pid));
        const gone = [...seen.values()].filter((p) => !live.has(p.pid)).map((p) => ({ ...p, gone: true }));
        return { ...last, processes: [...last.processes, ...gone] };
      },
    };
  }

  /** The postmaster with every child it reaped, plus its live children: all the server spent so far. */
  private clusterCpu(): number | undefined {
    if (this.postmaster === undefined) return undefined;
    const own = cpuSecondsWithReaped(this.postmaster);
    if (own === undefined) return undefined;
    return childPids(this.postmaster).reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), own);
  }

  /** The pids of the run's backends and of the shared processes, to pin. */
  async pidsOf(database: string): Promise<number[]> {
    const { processes } = await this.read();
    return processes.filter((p) => p.datname === database || SHARED_TYPES.has(p.backendType)).map((p) => p.pid);
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/** What the server spent between two readings, charged to `database` as ServerCpu says. */
export function serverCpu(before: ServerReading, after: ServerReading, database: string): ServerCpu {
  const start = new Map(before.processes.map((p) => [p.pid, p.cpu]));
  const delta = (p: { pid: number; cpu: number }) => p.cpu - (start.get(p.pid) ?? 0);
  const sum = (ps: { pid: number; cpu: number }[]) => ps.reduce((s, p) => s + delta(p), 0);
  const isBackend = (p: ServerProcess) => p.datname !== null && !SHARED_TYPES.has(p.backendType);
  const backends = sum(after.processes.filter((p) => p.datname === database));
  const allBackends = sum(after.processes.filter(isBackend));
  const shared = sum(after.processes.filter((p) => SHARED_TYPES.has(p.backendType)));
  const ended = after.processes.filter((p) => p.datname === database && p.gone).length;
  const cluster =
    before.cluster !== undefined && after.cluster !== undefined ? after.cluster - before.cluster : undefined;
  return {
    backends,
    allBackends,
    shared,
    run: backends + (allBackends > 0 ? (shared * backends) / allBackends : 0),
    cluster,
    ended,
  };
}

/** A process's CPU seconds so far, whole and by thread. */
export interface ProcessReading {
  total: number;
  threads: Map<number, number>;
}

/** What a process spent over a window: the whole of it, and its busiest thread (its event loop, as a rule). */
export interface ProcessCpu {
  total: number;
  busiest: number;
}

/** Reads each process (0 and no threads for one already gone). */
export const readProcesses = (pids: readonly (number | undefined)[]): ProcessReading[] =>
  pids.map((pid) => ({ total: cpuSeconds(pid) ?? 0, threads: threadCpuSeconds(pid) }));

/** What each process spent between two readings of the same processes. */
export function processCpu(before: ProcessReading[], after: ProcessReading[]): ProcessCpu[] {
  return after.map((a, i) => {
    const b = before[i]!;
    const busiest = Math.max(0, ...[...a.threads].map(([tid, cpu]) => cpu - (b.threads.get(tid) ?? 0)));
    return { total: a.total - b.total, busiest };
  });
}

/** The cores for the fleet (the first half) and for PostgreSQL (the rest), as taskset CPU lists. */
export function splitCores(): { fleet: string; database: string } | undefined {
  const n = availableParallelism();
  if (n < 2) return undefined;
  const half = Math.floor(n / 2);
  return { fleet: half === 1 ? "0" : `0-${half - 1}`, database: half === n - 1 ? `${half}` : `${half}-${n - 1}` };
}

/** Pinned processes and their affinity masks before, to put back. */
export class Pinning {
  private readonly before = new Map<number, string>();

  /** Pins every thread of each process to `cpus` (taskset -a -p -c); a process already gone is skipped. */
  pin(pids: readonly (number | undefined)[], cpus: string): void {
    for (const pid of pids) {
      if (pid === undefined) continue;
      try {
        const mask = /affinity mask: ([0-9a-f]+)/.exec(execFileSync("taskset", ["-p", `${pid}`], { encoding: "utf8" }));
        if (mask && !this.before.has(pid)) this.before.set(pid, mask[1]!);
        execFileSync("taskset", ["-a", "-p", "-c", cpus, `${pid}`], { stdio: "ignore" });
      } catch {
        // ended meanwhile, or not ours to pin: left as it is
      }
    }
  }

  /** Puts every pinned process's threads back on the mask it had. */
  restore(): void {
    for (const [pid, mask] of this.before)
      try {
        execFileSync("taskset", ["-a", "-p", mask, `${pid}`], { stdio: "ignore" });
      } catch {
        // ended meanwhile
      }
    this.before.clear();
  }
}
