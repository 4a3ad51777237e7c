/**
 * Every process's memory and event loop, sampled while the soak runs: RSS, V8 heap used and event-loop delay p99
 * from the process's Prometheus metrics (prom-client's defaults, which every process serves: the central node on its
 * API port, each adapter on its metrics port), RSS from /proc/<pid>/status when the scrape fails. prom-client resets
 * its event-loop histogram at each scrape, so each p99 covers the interval since the previous sample.
 */
import { readFileSync } from "node:fs";

interface Sample {
  /** ms since the run started. */
  atMs: number;
  pid: number;
  rssMB: number;
  heapMB: number | undefined;
  loopP99Ms: number | undefined;
}

/** The samples of each process by name (a restarted process goes on under the same name, with another pid). */
export type Samples = Map<string, Sample[]>;

const metric = (text: string, name: string): number | undefined => {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text);
  return m ? Number(m[1]) : undefined;
};

/** RSS of `pid` from /proc, MB; undefined once it is gone. */
function procRssMB(pid: number): number | undefined {
  try {
    const kB = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kB === undefined ? undefined : Number(kB) / 1024;
  } catch {
    return undefined;
  }
}

/** One sample of each process. */
export async function sampleAll(
  processes: { name: string; pid: number | undefined; metricsUrl: string | undefined }[],
  atMs: number,
  samples: Samples,
): Promise<void> {
  await Promise.all(
    processes.map(async ({ name, pid, metricsUrl }) => {
      if (pid === undefined) return;
      let text = "";
      if (metricsUrl)
        text = await fetch(metricsUrl, { signal: AbortSignal.timeout(5_000) })
          .then((r) => r.text())
          .catch(() => "");
      const rss = metric(text, "process_resident_memory_bytes");
      const heap = metric(text, "nodejs_heap_size_used_bytes");
      const loop = metric(text, "nodejs_eventloop_lag_p99_seconds");
      const rssMB = rss !== undefined ? rss / 2 ** 20 : procRssMB(pid);
      if (rssMB === undefined) return; // it is being restarted
      const list = samples.get(name) ?? [];
      samples.set(name, list);
      list.push({
        atMs,
        pid,
        rssMB,
        heapMB: heap === undefined ? undefined : heap / 2 ** 20,
        loopP99Ms: loop === undefined ? undefined : loop * 1000,
      });
    }),
  );
}

/** Least-squares slope of `value` over time, MB per hour; NaN with fewer than 3 points. */
export function slopeMBPerHour(points: { atMs: number; value: number }[]): number {
  if (points.length < 3) return NaN;
  const n = points.length;
  const mx = points.reduce((a, p) => a + p.atMs, 0) / n;
  const my = points.reduce((a, p) => a + p.value, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.atMs - mx) * (p.value - my);
    den += (p.atMs - mx) ** 2;
  }
  return den === 0 ? NaN : (num / den) * 3_600_000;
}
