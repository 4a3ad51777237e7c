import type { Logger } from "pino";
import { decodeUplink } from "./decode/decode-uplink.js";
import type { PipelineStats } from "./pipeline-observer.js";
import type { PipelinePoint, ProductSpec } from "./product-specs.js";
import type { EventRow } from "./recent-uplinks.js";
import { isFaultValue } from "./rules/check-value.js";
import { discards } from "./rules/discards.js";
import type { PointValueRow } from "./series-store.js";

/** A device whose uplinks the pipeline decodes: its type (a gateway's own uplinks differ) and its product's spec. */
export interface StreamedDevice {
  deviceType: number;
  spec: ProductSpec;
}

/** What a batch of events yields: its values, with the point and the formulas of each. */
export interface DecodedBatch {
  values: PointValueRow[];
  /** The point of each value, at the same index. */
  points: PipelinePoint[];
  /** eventId → the formulas its values feed. */
  formulasOf: Map<number, ProductSpec["formulas"]>;
}

/**
 * The values of a batch of events of `devices`, with the point and formulas of each, ready to write (writeDecoded);
 * each uplink's values are listed together. Counts the uplinks decoded and the values refused in `stats`, and logs
 * each refusal.
 */
export function decodeEvents(
  batch: readonly EventRow[],
  devices: ReadonlyMap<number, StreamedDevice>,
  stats: PipelineStats,
  logger: Logger,
): DecodedBatch {
  const values: PointValueRow[] = [];
  const points: PipelinePoint[] = [];
  const formulasOf = new Map<number, ProductSpec["formulas"]>();
  for (const u of batch) {
    const device = devices.get(u.deviceIntId);
    if (!device) continue;
    const spec = device.spec;
    stats.uplinks++;
    const fromGateway = device.deviceType === 2 && u.gatewayIntId === null;
    const decoded = decodeUplink(spec.streams, u.topic, fromGateway, u.payload);
    for (const f of decoded.failures) {
      stats.refused++;
      logger.info({ deviceIntId: u.deviceIntId, topic: u.topic, reason: f.error }, "uplink not decoded");
    }
    for (const r of decoded.refused) {
      stats.refused++;
      logger.info({ deviceIntId: u.deviceIntId, dataPointId: r.dataPointId, reason: r.reason }, "value refused");
    }
    // A fault point with isDiscard that got its fault value drops the message's values but its own: the fault
    // is stored and alerted once, however often the uplink is replayed.
    const discard = discards(spec.points, decoded.values);
    formulasOf.set(u.id, discard ? [] : spec.formulas);
    for (const v of decoded.values) {
      const point = spec.points.get(v.dataPointIntId);
      if (!point || (discard && !isFaultValue(point, v))) continue;
      points.push(point);
      values.push({
        tenantId: u.tenantId,
        deviceIntId: u.deviceIntId,
        dataPointIntId: v.dataPointIntId,
        eventId: u.id,
        valueTime: decoded.deviceTime ?? u.msgTime,
        receivedAt: u.msgTime,
        numValue: v.number,
        textValue: v.text,
      });
    }
  }
  return { values, points, formulasOf };
}
