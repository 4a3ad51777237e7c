/**
 * How each uplink's outcome is counted (`iot_adapter_uplinks_total`, the ack latency, the buffer depth): the
 * registry's acks and rejections settle buffered uplinks, and an uplink refused before buffering gets its outcome
 * from its error.
 */
import type { UplinkAck } from "@iot/proto";
import type { Logger } from "pino";
import type { AdapterMetrics } from "./adapter-metrics.js";
import { AdapterError } from "./errors.js";
import type { UplinkBuffer } from "./uplink-buffer.js";

/** Settles the uplinks a registry's UplinkAck names: acked ones resolve, rejected ones fail with its reason. */
export function applyUplinkAck(ack: UplinkAck, buffer: UplinkBuffer, metrics: AdapterMetrics, log: Logger): void {
  const now = performance.now();
  let acked = 0;
  for (const seq of ack.seqs) {
    const addedAt = buffer.ack(Number(seq));
    if (addedAt === undefined) continue;
    acked++;
    metrics.ackLatency((now - addedAt) / 1000);
  }
  if (acked > 0) metrics.uplink("acked", acked);
  for (const r of ack.rejected) {
    log.warn({ seq: Number(r.seq), reason: r.reason }, "registry rejected uplink");
    if (buffer.reject(Number(r.seq), r.reason)) metrics.uplink("rejected");
  }
  metrics.bufferDepth(buffer.size, buffer.waitingCount);
}

/** The `iot_adapter_uplinks_total` outcome of a refused or failed uplink. */
export function uplinkOutcome(err: unknown): string {
  const code = err instanceof AdapterError ? err.code : undefined;
  if (code === "BUFFER_FULL") return "buffer_full";
  if (code === "MESSAGE_TOO_LARGE") return "too_large";
  if (code === "UPLINK_REJECTED") return "rejected";
  return "closed";
}
