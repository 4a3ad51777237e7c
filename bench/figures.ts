/** What every benchmark needs to read its arguments and summarise its samples. */
import { readdirSync, readFileSync } from "node:fs";

/** A positive whole number from the command line, or `fallback` when not given. */
export function positiveInt(arg: string | undefined, fallback: number): number {
  if (arg === undefined) return fallback;
  const n = Number(arg);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`expected a positive integer, got ${arg}`);
  return n;
}

/** The p-th percentile (0–100) of the values, nearest rank; NaN without values. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

/**
 * CPU seconds (user + system) a process has used so far, from Linux's /proc; undefined elsewhere. Differences of it
 * say what a phase cost each process, which a shared, busy machine distorts far less than rates and wall-clock
 * profiles.
 */
export function cpuSeconds(pid: number | undefined): number | undefined {
  const t = cpuTimes(pid);
  return t && t.user + t.system;
}

/** `cpuSeconds` in its two parts: the process's own code (user) and the kernel's work for it (system). */
export function cpuTimes(pid: number | undefined): { user: number; system: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (in parentheses, which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      user: Number(fields[11]) / CLOCK_TICKS_PER_SECOND,
      system: Number(fields[12]) / CLOCK_TICKS_PER_SECOND,
    };
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ, the unit of /proc/<pid>/stat times (100 on every mainstream build). */
const CLOCK_TICKS_PER_SECOND = 100;

/** Now on the monotonic clock in µs, as CPU profiles stamp their samples (`cpu-profile-top.ts --from/--to`). */
export const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * CPU seconds a process and every child it has reaped have used so far (utime + stime + cutime + cstime): for a
 * server that forks a process per connection (PostgreSQL's postmaster), the CPU of the children that ended.
 */
export function cpuSecondsWithReaped(pid: number): number | undefined {
  const f = statFields(pid);
  return f && (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / CLOCK_TICKS_PER_SECOND;
}

/** The parent's pid of a process, from /proc; undefined when it cannot be read. */
export function parentPid(pid: number): number | undefined {
  const f = statFields(pid);
  return f && Number(f[1]);
}

/** The pids of the live children of `ppid` (a scan of /proc); empty where /proc is not there. */
export function childPids(ppid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  return entries.filter((e) => /^\d+$/.test(e) && parentPid(Number(e)) === ppid).map(Number);
}

/**
 * CPU seconds each thread of a process has used so far, by thread id (/proc/<pid>/task); empty when unreadable. A
 * process's busiest thread (a Node.js event loop) bounds its rate whatever the cores: differences of it tell how
 * close a phase came to that bound.
 */
export function threadCpuSeconds(pid: number | undefined): Map<number, number> {
  const out = new Map<number, number>();
  if (pid === undefined) return out;
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    const f = statFields(`${pid}/task/${tid}`);
    if (f) out.set(Number(tid), (Number(f[11]) + Number(f[12])) / CLOCK_TICKS_PER_SECOND);
  }
  return out;
}

/** /proc/<pid>/stat's fields after the command name (state is [0], ppid [1], utime [11]); undefined when gone. */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds the whole machine has been busy so far (every core's user, nice, system, irq and softirq time from
 * /proc/stat; idle and iowait left out); undefined where /proc is not there. Beside a run's own processes' CPU, it
 * says how much of the machine others used meanwhile.
 */
export function machineBusySeconds(): number | undefined {
  try {
    const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq] = cpu;
    return (user! + nice! + system! + irq! + softirq!) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
