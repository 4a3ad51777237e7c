import type { SimDevice, Send } from "./sim-protocol.js";

/** Counts and latencies of a run so far. */
export interface LoadStats {
  sent: number;
  ok: number;
  failed: number;
  /** Latency percentiles of the acknowledged messages, ms. */
  p50: number;
  p95: number;
  p99: number;
  /** The first failure's reason, to say why when some failed. */
  firstError?: string;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Sends `rate` messages a second, round-robin over `devices`, for `seconds` (or until `signal` aborts), each a JSON
 * `{seq, at}`; at most `maxInFlight` unacknowledged at once (a slower service is measured, not flooded). Calls
 * `tick` with the stats every second; answers the final stats once every message sent is settled.
 */
export async function runLoad(o: {
  devices: readonly SimDevice[];
  send: Send;
  rate: number;
  seconds?: number | undefined;
  signal?: AbortSignal | undefined;
  maxInFlight?: number;
  tick?: (stats: LoadStats) => void;
}): Promise<LoadStats> {
  const latencies: number[] = [];
  const stats: LoadStats = { sent: 0, ok: 0, failed: 0, p50: 0, p95: 0, p99: 0 };
  const pending = new Set<Promise<void>>();
  const snapshot = (): LoadStats => {
    const sorted = [...latencies].sort((a, b) => a - b);
    return { ...stats, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
  };
  const start = performance.now();
  const end = o.seconds === undefined ? Infinity : start + o.seconds * 1000;
  let nextTick = start + 1000;
  while (!o.signal?.aborted && performance.now() < end) {
    const due = Math.floor(((performance.now() - start) / 1000) * o.rate);
    while (stats.sent < due && pending.size < (o.maxInFlight ?? 1000)) {
      const i = stats.sent % o.devices.length;
      const t0 = performance.now();
      const p = o
        .send(o.devices[i]!, i, JSON.stringify({ seq: stats.sent, at: Date.now() }))
        .then(
          () => {
            stats.ok++;
            latencies.push(performance.now() - t0);
          },
          (err: unknown) => {
            stats.failed++;
            stats.firstError ??= (err as Error).message;
          },
        )
        .finally(() => pending.delete(p));
      pending.add(p);
      stats.sent++;
    }
    if (performance.now() >= nextTick) {
      nextTick += 1000;
      o.tick?.(snapshot());
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all(pending);
  return snapshot();
}
