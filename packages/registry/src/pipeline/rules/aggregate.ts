import type { AggregateKind, BucketUnit, TimedValue } from "./types.js";

/** `aggregateType` codes of metrics (domain/metrics.ts) and what they compute. */
const AGGREGATE_KINDS: Readonly<Record<number, AggregateKind>> = {
  1: "max",
  2: "min",
  3: "average",
  4: "accumulated",
};

/** The kind of an `aggregateType` code (1 max, 2 min, 3 average, 4 accumulated), or null for any other. */
export function aggregateKindOf(aggregateType: number | null): AggregateKind | null {
  return aggregateType !== null && Object.hasOwn(AGGREGATE_KINDS, aggregateType)
    ? AGGREGATE_KINDS[aggregateType]!
    : null;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The start (epoch ms) of the UTC bucket holding `time` (epoch ms): the
 * minute, hour or day; the week starting Monday 00:00; the calendar month's
 * first day 00:00.
 */
export function bucketStart(time: number, unit: BucketUnit): number {
  switch (unit) {
    case "minute":
      return Math.floor(time / MINUTE) * MINUTE;
    case "hour":
      return Math.floor(time / HOUR) * HOUR;
    case "day":
      return Math.floor(time / DAY) * DAY;
    case "week": {
      const day = Math.floor(time / DAY) * DAY;
      const sinceMonday = (new Date(day).getUTCDay() + 6) % 7;
      return day - sinceMonday * DAY;
    }
    case "month": {
      const d = new Date(time);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    }
  }
}

interface Bucket {
  max: number;
  min: number;
  sum: number;
  count: number;
}

const result = (b: Bucket, kind: AggregateKind): number =>
  kind === "max" ? b.max : kind === "min" ? b.min : kind === "accumulated" ? b.sum : b.sum / b.count;

/**
 * One value per UTC bucket of `timeUnit` that holds samples, oldest first:
 * the bucket's maximum, minimum, average or sum (accumulated), timed at the
 * bucket's start ({@link bucketStart}). Samples with a non-finite time or
 * value are ignored, and a bucket whose sum overflows is left out. Samples
 * may come in any order.
 */
export function aggregate(points: readonly TimedValue[], timeUnit: BucketUnit, kind: AggregateKind): TimedValue[] {
  const buckets = new Map<number, Bucket>();
  for (const { time, value } of points) {
    if (!Number.isFinite(time) || !Number.isFinite(value)) continue;
    const start = bucketStart(time, timeUnit);
    const b = buckets.get(start);
    if (b === undefined) buckets.set(start, { max: value, min: value, sum: value, count: 1 });
    else {
      if (value > b.max) b.max = value;
      if (value < b.min) b.min = value;
      b.sum += value;
      b.count++;
    }
  }
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([time, b]) => ({ time, value: result(b, kind) }))
    .filter((s) => Number.isFinite(s.value));
}
