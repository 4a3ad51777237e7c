import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { appendEvents, type NewEvent } from "../northbound/events.js";
import { OpenAlerts } from "./alerts-store.js";
import type { DecodedBatch } from "./decode-events.js";
import type { PipelineStats } from "./pipeline-observer.js";
import type { PipelinePoint } from "./product-specs.js";
import { checkValue } from "./rules/check-value.js";
import { computeFormulaMetrics, type FormulaCache } from "./rules/formula-metrics.js";
import {
  storeMetricValues,
  storePointValues,
  updateLatestValues,
  type MetricValueRow,
  type PointValueRow,
} from "./series-store.js";

/** pointDataType of a geolocation point. */
const GEOLOCATION = 6;

/**
 * Stores, in the caller's transaction `tx`, the values not stored before and what follows from them: latest values,
 * position, formula metrics, alerts, and the feed's decoded and alert events. Counts the values in `stats`.
 */
export async function writeDecoded(
  tx: Kysely<Database>,
  { values, points, formulasOf }: DecodedBatch,
  formulas: FormulaCache,
  stats: PipelineStats,
): Promise<void> {
  await storePointValues(tx, values);
  stats.values += values.length;
  await updateLatestValues(tx, values);
  const alerts = await OpenAlerts.load(tx, [...new Set(values.map((r) => r.deviceIntId))]);
  await moveDevices(tx, values, points);
  const metrics: MetricValueRow[] = [];
  const events: NewEvent[] = [];
  // decodeEvents lists each uplink's values together: one run of rows per uplink.
  for (let start = 0, end = 0; start < values.length; start = end) {
    const first = values[start]!;
    while (end < values.length && values[end]!.eventId === first.eventId) end++;
    const decodedValues = [];
    const checked = [];
    for (let i = start; i < end; i++) {
      const r = values[i]!;
      const point = points[i]!;
      const value = {
        dataPointIntId: r.dataPointIntId,
        dataPointId: point.dataPointId,
        number: r.numValue,
        text: r.textValue,
      };
      decodedValues.push(value);
      checked.push({ point, value, breaches: checkValue(point, value) });
    }
    for (const m of computeFormulaMetrics(formulasOf.get(first.eventId) ?? [], decodedValues, formulas))
      metrics.push({
        tenantId: first.tenantId,
        deviceIntId: first.deviceIntId,
        metricIntId: m.metricIntId,
        eventId: first.eventId,
        valueTime: first.valueTime,
        value: m.value,
      });
    events.push({
      tenantId: first.tenantId,
      deviceIntId: first.deviceIntId,
      type: "decoded",
      time: first.valueTime,
      data: {
        receivedAt: first.receivedAt,
        values: decodedValues.map((v) => ({ dataPointID: v.dataPointId, value: v.number ?? v.text })),
      },
    });
    events.push(...(await alerts.apply(tx, first.tenantId, first.deviceIntId, checked, first.valueTime)));
  }
  await storeMetricValues(tx, metrics);
  // The feed's decoded and alert events, in the transaction of the values they report.
  await appendEvents(tx, events);
}

/**
 * Location points set the device's position: a geolocation point (type 6, stored as "lon,lat") both coordinates,
 * a numeric point with isLocationType 1 the one its locationType names (1 longitude, 2 latitude). `points[i]` is
 * the point of `values[i]`.
 */
async function moveDevices(
  tx: Kysely<Database>,
  values: readonly PointValueRow[],
  points: readonly PipelinePoint[],
): Promise<void> {
  for (let i = 0; i < values.length; i++) {
    const position = positionOf(points[i]!, values[i]!);
    if (position) await tx.updateTable("devices").set(position).where("id", "=", values[i]!.deviceIntId).execute();
  }
}

/** The coordinates a stored value gives its device, if its point is a location point. */
function positionOf(point: PipelinePoint, r: PointValueRow): { longitude?: number; latitude?: number } | undefined {
  if (point.pointDataType === GEOLOCATION && r.textValue !== null) {
    const [longitude, latitude] = r.textValue.split(",").map(Number);
    return { longitude, latitude };
  }
  if (r.numValue === null) return undefined;
  if (point.locationType === 1) return { longitude: r.numValue };
  if (point.locationType === 2) return { latitude: r.numValue };
  return undefined;
}
