/**
 * What a device's pages show: its console (the product's app templates with
 * the device's current values), the original data of its numeric data points
 * and its metrics, read from the series the data pipeline stores
 * (`point_values`, `metric_values`).
 */
import { sql, type Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { evaluate, parseExpression } from "../pipeline/expression.js";
import { aggregate, aggregateKindOf, bucketStart } from "../pipeline/rules/aggregate.js";
import type { AggregateKind, BucketUnit, TimedValue } from "../pipeline/rules/types.js";
import type { Caller } from "./caller.js";
import { NUMERIC_POINT_TYPES } from "./data-points.js";
import { getDevice, getDeviceByDeviceId } from "./devices.js";
import { listAppTemplates, type AppTemplate } from "./app-templates.js";
import type { ListResult, Page } from "./list.js";
import { AGGREGATE_METRIC, productMetrics, type Metric } from "./metrics.js";

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
  // An LwM2M template names its resource by objectID/instanceID/itemID: its value is that of the product's data
  // point named by the same object path (`3303/0/5700`), when the template names no data point itself.
  const paths = r.items.flatMap((t) => (t.dataPointIntId === null && objectPath(t) ? [objectPath(t)!] : []));
  const byPath =
    paths.length === 0
      ? new Map<string, number>()
      : new Map(
          (
            await db
              .selectFrom("dataPoints")
              .select(["id", "dataPointId"])
              .where("productIntId", "=", device.productIntId)
              .where("dataPointId", "in", [...paths, ...paths.map((p) => `/${p}`)])
              .execute()
          ).map((p) => [p.dataPointId.replace(/^\//, ""), p.id]),
        );
  const pointOf = (t: (typeof r.items)[number]) => t.dataPointIntId ?? byPath.get(objectPath(t) ?? "") ?? null;
  const ids = r.items.flatMap((t) => pointOf(t) ?? []);
  const values = await latestValues(db, device.id, [...new Set(ids)]);
  return {
    ...r,
    items: r.items.map((t) => {
      const point = pointOf(t);
      return { ...t, value: point === null ? null : (values.get(point)?.value ?? null) };
    }),
  };
}

/** An LwM2M template's resource as an object path without the leading slash, or undefined when it names none. */
function objectPath(t: { objectId: string | null; instanceId: string | null; itemId: string | null }) {
  return t.objectId && t.itemId ? `${t.objectId}/${t.instanceId || "0"}/${t.itemId}` : undefined;
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

/** `[start, end]` of a window: `end` by default now, `start` by default `length` ms before `end`. */
function windowOf(w: Omit<SeriesWindow, "timeUnit">, length: number): { start: number; end: number } {
  const end = w.end ?? w.now ?? Date.now();
  return { start: w.start ?? end - length, end };
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
  const { start, end } = windowOf(options, TIME_UNITS[options.timeUnit ?? "day"]);
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

/** A `time_unit` of metric data: the bucket (UTC) of aggregate metrics, the window of formula metrics. */
export type MetricTimeUnit = BucketUnit;
/** Every {@link MetricTimeUnit}, shortest first. */
export const METRIC_TIME_UNITS: readonly MetricTimeUnit[] = ["minute", "hour", "day", "week", "month"];

/** How many buckets (the current one included) the default window of an aggregate metric covers. */
export const AGGREGATE_DEFAULT_BUCKETS = 30;

/** A window of metric data; `timeUnit` (default day) may also be a minute. */
export type MetricsWindow = Omit<SeriesWindow, "timeUnit"> & {
  timeUnit?: MetricTimeUnit | undefined;
  metricType?: number | undefined;
};

const MINUTE = 60_000;
const FORMULA_WINDOWS: Record<BucketUnit, number> = { minute: MINUTE, ...TIME_UNITS };

/**
 * The window of an aggregate metric: `[start, end]`, `end` by default now; `start` by default the start of the
 * bucket AGGREGATE_DEFAULT_BUCKETS - 1 buckets before the one holding `end`, so the window is whole buckets.
 */
export function aggregateWindow(
  unit: MetricTimeUnit,
  w: Omit<MetricsWindow, "timeUnit">,
): { start: number; end: number } {
  const end = w.end ?? w.now ?? Date.now();
  if (w.start !== undefined) return { start: w.start, end };
  let start = bucketStart(end, unit);
  for (let i = 1; i < AGGREGATE_DEFAULT_BUCKETS; i++) start = bucketStart(start - 1, unit);
  return { start, end };
}

/** The stored series of a formula metric for a device inside `[start, end]`: the newest SERIES_MAX_POINTS. */
async function formulaSeries(
  db: Kysely<Database>,
  deviceIntId: number,
  metricIntId: number,
  start: number,
  end: number,
) {
  const rows = await db
    .selectFrom("metricValues")
    .select(["valueTime", "value"])
    .where("deviceIntId", "=", deviceIntId)
    .where("metricIntId", "=", metricIntId)
    .where("valueTime", ">=", start)
    .where("valueTime", "<=", end)
    .orderBy("valueTime", "desc")
    .orderBy("id", "desc")
    .limit(SERIES_MAX_POINTS)
    .execute();
  rows.reverse();
  return rows.map((r) => ({ time: Number(r.valueTime), value: r.value }));
}

/**
 * Per-bucket partial results (max, min, sum, count) of a point's numeric values in `[start, end]`, newest first,
 * grouped by the database over UTC minutes, hours or days (epoch-aligned on both engines): the unit itself, or days
 * for weeks and months, which {@link aggregate} then folds. At most `limit` groups.
 */
async function partials(
  db: Kysely<Database>,
  where: { deviceIntId: number; dataPointIntId: number; start: number; end: number },
  grain: number,
  limit: number,
) {
  const t = sql.ref("value_time");
  const g = sql.lit(grain);
  const bucket = sql<number | string>`${t} - ((${t} % ${g}) + ${g}) % ${g}`;
  const rows = await db
    .selectFrom("pointValues")
    .select([
      bucket.as("bucket"),
      sql<number>`max(num_value)`.as("max"),
      sql<number>`min(num_value)`.as("min"),
      sql<number>`sum(num_value)`.as("sum"),
      sql<number | string>`count(num_value)`.as("count"),
    ])
    .where("deviceIntId", "=", where.deviceIntId)
    .where("dataPointIntId", "=", where.dataPointIntId)
    .where("valueTime", ">=", where.start)
    .where("valueTime", "<=", where.end)
    .where("numValue", "is not", null)
    .groupBy(bucket)
    .orderBy(bucket, "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    time: Number(r.bucket),
    max: Number(r.max),
    min: Number(r.min),
    sum: Number(r.sum),
    count: Number(r.count),
  }));
}

const GRAINS: Record<BucketUnit, number> = {
  minute: MINUTE,
  hour: TIME_UNITS.hour,
  day: TIME_UNITS.day,
  week: TIME_UNITS.day,
  month: TIME_UNITS.day,
};
/** Most days one week or month bucket can hold. */
const MAX_DAYS_PER_BUCKET = 31;

/**
 * An aggregate of a point's numeric values per UTC bucket of `unit` in `[start, end]`, oldest first, timed at each
 * bucket's start; buckets without values are left out, and only the newest SERIES_MAX_POINTS are kept. A bucket
 * cut by `start` or `end` aggregates the values inside the window only.
 */
async function aggregateSeries(
  db: Kysely<Database>,
  where: { deviceIntId: number; dataPointIntId: number; start: number; end: number },
  unit: BucketUnit,
  kind: AggregateKind,
): Promise<TimedValue[]> {
  const grain = GRAINS[unit];
  const folded = unit === "week" || unit === "month" ? MAX_DAYS_PER_BUCKET : 1;
  const limit = SERIES_MAX_POINTS * folded;
  const rows = await partials(db, where, grain, limit);
  const of = (field: "max" | "min" | "sum" | "count", k: AggregateKind) =>
    aggregate(
      rows.map((r) => ({ time: r.time, value: r[field] })),
      unit,
      k,
    );
  let out: TimedValue[];
  if (kind === "average") {
    const counts = new Map(of("count", "accumulated").map((c) => [c.time, c.value]));
    out = of("sum", "accumulated").map((s) => ({ time: s.time, value: s.value / counts.get(s.time)! }));
  } else out = of(kind === "accumulated" ? "sum" : kind, kind);
  // The day limit can cut only the oldest week or month read. When the limit is reached, at least SERIES_MAX_POINTS
  // buckets were read (none holds more than 31 days): either the oldest is beyond those kept and sliced off, or
  // exactly SERIES_MAX_POINTS were read with 31 days each, so none is cut.
  return out.slice(-SERIES_MAX_POINTS);
}

/** A metric's expressions applied to each value (when it has some); samples without a finite result are left out. */
function applyExpressions(m: Metric, samples: TimedValue[]): TimedValue[] {
  if (m.expressions === null || m.expressions.trim() === "") return samples;
  let ast;
  try {
    ast = parseExpression(m.expressions);
  } catch {
    return [];
  }
  return samples.flatMap((s) => {
    const value = evaluate(ast, s.value);
    return value === null ? [] : [{ time: s.time, value }];
  });
}

const seriesOf = (samples: TimedValue[]): Series => ({
  time: samples.map((s) => s.time),
  value: samples.map((s) => s.value),
});

/**
 * The metrics of the caller's device `deviceId`'s product (DATA_NOT_FOUND for an unknown or foreign device), oldest
 * first, optionally of one metricType, each with its series for that device, oldest first:
 * - a formula metric (1): the values the data pipeline stored in the window (as original data: the `timeUnit`, day
 *   by default, ending at `end` or now; a minute too), at most SERIES_MAX_POINTS (the newest);
 * - an aggregate metric (2): its aggregateType (max, min, average, accumulated) of the point's numeric values per
 *   UTC bucket of `timeUnit` (default day), in {@link aggregateWindow} (by default the last
 *   AGGREGATE_DEFAULT_BUCKETS buckets), then its expressions when it has some; empty for an unknown aggregateType.
 */
export async function metricsData(
  db: Kysely<Database>,
  caller: Caller,
  deviceId: string,
  options: MetricsWindow = {},
): Promise<MetricData[]> {
  const device = await getDeviceByDeviceId(db, caller, deviceId);
  const metrics = await productMetrics(db, caller, device.productIntId, options.metricType);
  const unit = options.timeUnit ?? "day";
  const out: MetricData[] = [];
  for (const m of metrics) {
    let samples: TimedValue[] = [];
    if (m.metricType === AGGREGATE_METRIC) {
      const kind = aggregateKindOf(m.aggregateType);
      const window = aggregateWindow(unit, options);
      if (kind !== null) {
        const where = { deviceIntId: device.id, dataPointIntId: m.dataPointIntId, ...window };
        samples = applyExpressions(m, await aggregateSeries(db, where, unit, kind));
      }
    } else {
      const { start, end } = windowOf(options, FORMULA_WINDOWS[unit]);
      samples = await formulaSeries(db, device.id, m.id, start, end);
    }
    out.push({ ...m, metricData: seriesOf(samples) });
  }
  return out;
}
