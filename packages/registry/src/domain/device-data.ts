/**
 * What a device's pages show: its console (the product's app templates with
 * the device's current values), the original data of its numeric data points
 * and its metrics. Until the stored time series arrive, every series holds
 * at most one sample: the latest value of the point (`devicePointValues`).
 */
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { evaluate, parseExpression } from "../pipeline/expression.js";
import type { Caller } from "./caller.js";
import { NUMERIC_POINT_TYPES } from "./data-points.js";
import { getDevice, getDeviceByDeviceId } from "./devices.js";
import { listAppTemplates, type AppTemplate } from "./app-templates.js";
import type { ListResult, Page } from "./list.js";
import { productMetrics, type Metric } from "./metrics.js";

/** Windows of original data, ms: the series covers the last hour, day, week or 30 days. */
export const TIME_UNITS = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000 } as const;
/** A `time_unit` of original data. */
export type TimeUnit = keyof typeof TIME_UNITS;

/** A time series: `time[i]` (epoch ms) goes with `value[i]`. */
export interface Series {
  time: number[];
  value: number[];
}

/**
 * An app template as a device's console shows it: `value` is the device's current value of the template's data point,
 * or null.
 */
export type ConsoleTemplate = AppTemplate & { value: string | null };

/** The original data of one data point of a device. */
export interface OriginalData {
  dataPointIntId: number;
  dataPointName: string;
  originalData: Series;
}

/** A metric of a device's product with its series for that device. */
export type MetricData = Metric & { metricData: Series };

/** The latest stored value of each of `pointIds` for a device, with the time it was stored. */
async function latestValues(db: Kysely<Database>, deviceIntId: number, pointIds: number[]) {
  if (pointIds.length === 0) return new Map<number, { value: string | null; updateAt: number }>();
  const rows = await db
    .selectFrom("devicePointValues")
    .select(["dataPointIntId", "value", "updateAt"])
    .where("deviceIntId", "=", deviceIntId)
    .where("dataPointIntId", "in", pointIds)
    .execute();
  return new Map(rows.map((r) => [r.dataPointIntId, { value: r.value, updateAt: Number(r.updateAt) }]));
}

/** A stored value read as a finite number, or null. */
function numberOf(text: string | null | undefined): number | null {
  if (text === null || text === undefined || text.trim() === "") return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

const empty = (): Series => ({ time: [], value: [] });

/**
 * The console of one of the caller's devices (DATA_NOT_FOUND otherwise): the
 * app templates of its product, newest first, each with the device's current
 * value of the template's data point (null when none is stored or the
 * template has no data point).
 */
export async function deviceConsole(
  db: Kysely<Database>,
  caller: Caller,
  deviceIntId: number,
  page: Page,
): Promise<ListResult<ConsoleTemplate>> {
  const device = await getDevice(db, caller, deviceIntId);
  const r = await listAppTemplates(db, caller, page, { productIntId: device.productIntId });
  const ids = r.items.flatMap((t) => (t.dataPointIntId === null ? [] : [t.dataPointIntId]));
  const values = await latestValues(db, device.id, [...new Set(ids)]);
  return {
    ...r,
    items: r.items.map((t) => ({
      ...t,
      value: t.dataPointIntId === null ? null : (values.get(t.dataPointIntId)?.value ?? null),
    })),
  };
}

/** Most samples one series answers: the newest ones of the window, oldest first. */
export const SERIES_MAX_POINTS = 1000;

/** A series window: `[start, end]` epoch ms, by default the `timeUnit` (day) ending now. */
export interface SeriesWindow {
  timeUnit?: TimeUnit | undefined;
  start?: number | undefined;
  end?: number | undefined;
  now?: number | undefined;
}

function windowOf(w: SeriesWindow): { start: number; end: number } {
  const end = w.end ?? w.now ?? Date.now();
  return { start: w.start ?? end - TIME_UNITS[w.timeUnit ?? "day"], end };
}

/**
 * Original data of the caller's device `deviceId` (DATA_NOT_FOUND otherwise): one entry per numeric data point its
 * product reports (dataTransType 1 or 3), each with the values the data pipeline stored in the window (device time),
 * oldest first, at most SERIES_MAX_POINTS (the newest).
 */
export async function originalData(
  db: Kysely<Database>,
  caller: Caller,
  deviceId: string,
  options: SeriesWindow = {},
): Promise<OriginalData[]> {
  const device = await getDeviceByDeviceId(db, caller, deviceId);
  const { start, end } = windowOf(options);
  const points = await db
    .selectFrom("dataPoints")
    .select(["id", "dataPointName"])
    .where("tenantId", "=", caller.tenantId)
    .where("productIntId", "=", device.productIntId)
    .where("pointDataType", "in", [...NUMERIC_POINT_TYPES])
    .where("dataTransType", "in", [1, 3])
    .orderBy("id")
    .execute();
  const out: OriginalData[] = [];
  for (const p of points) {
    const rows = await db
      .selectFrom("pointValues")
      .select(["valueTime", "numValue"])
      .where("deviceIntId", "=", device.id)
      .where("dataPointIntId", "=", p.id)
      .where("valueTime", ">=", start)
      .where("valueTime", "<=", end)
      .where("numValue", "is not", null)
      .orderBy("valueTime", "desc")
      .orderBy("id", "desc")
      .limit(SERIES_MAX_POINTS)
      .execute();
    rows.reverse();
    out.push({
      dataPointIntId: p.id,
      dataPointName: p.dataPointName,
      originalData: { time: rows.map((r) => Number(r.valueTime)), value: rows.map((r) => r.numValue!) },
    });
  }
  return out;
}

/**
 * The value of a metric for one sample: a formula applies its expressions;
 * an aggregate of a single sample is the sample (maximum, minimum, average
 * and sum of one value agree), after its expressions when it has some.
 */
function metricValue(m: Metric, sample: number): number | null {
  if (m.expressions === null) return sample;
  try {
    return evaluate(parseExpression(m.expressions), sample);
  } catch {
    return null;
  }
}

/**
 * The metrics of the caller's device `deviceId`'s product (DATA_NOT_FOUND for
 * an unknown or foreign device), oldest first, optionally of one metricType,
 * each with its series for that device: the metric of the latest numeric
 * value of its data point, left out when the metric has no finite value.
 */
export async function metricsData(
  db: Kysely<Database>,
  caller: Caller,
  deviceId: string,
  options: { metricType?: number | undefined } = {},
): Promise<MetricData[]> {
  const device = await getDeviceByDeviceId(db, caller, deviceId);
  const metrics = await productMetrics(db, caller, device.productIntId, options.metricType);
  const values = await latestValues(db, device.id, [...new Set(metrics.map((m) => m.dataPointIntId))]);
  return metrics.map((m) => {
    const latest = values.get(m.dataPointIntId);
    const sample = numberOf(latest?.value);
    const v = sample === null ? null : metricValue(m, sample);
    return { ...m, metricData: latest && v !== null ? { time: [latest.updateAt], value: [v] } : empty() };
  });
}
