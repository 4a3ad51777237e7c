/** What every benchmark needs to read its arguments and summarise its samples. */
import { readFileSync } from "node:fs";

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
