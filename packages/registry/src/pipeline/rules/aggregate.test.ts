import { describe, expect, it } from "vitest";
import { aggregate, aggregateKindOf, bucketStart } from "./aggregate.js";

const utc = (iso: string) => Date.parse(`${iso}Z`);

describe("bucketStart", () => {
  it("cuts minutes, hours and days in UTC", () => {
    const t = utc("2024-03-10T13:47:59.999");
    expect(bucketStart(t, "minute")).toBe(utc("2024-03-10T13:47:00"));
    expect(bucketStart(t, "hour")).toBe(utc("2024-03-10T13:00:00"));
    expect(bucketStart(t, "day")).toBe(utc("2024-03-10T00:00:00"));
  });

  it("keeps a time on a bucket's first millisecond in that bucket", () => {
    for (const unit of ["minute", "hour", "day"] as const) {
      expect(bucketStart(utc("2024-03-11T00:00:00"), unit)).toBe(utc("2024-03-11T00:00:00"));
    }
    expect(bucketStart(utc("2024-03-11T00:00:00"), "week")).toBe(utc("2024-03-11T00:00:00"));
    expect(bucketStart(utc("2024-03-01T00:00:00"), "month")).toBe(utc("2024-03-01T00:00:00"));
  });

  it("starts weeks on Monday: Sunday's last millisecond belongs to the week before", () => {
    // 2024-03-11 is a Monday.
    expect(bucketStart(utc("2024-03-17T23:59:59.999"), "week")).toBe(utc("2024-03-11T00:00:00"));
    expect(bucketStart(utc("2024-03-18T00:00:00"), "week")).toBe(utc("2024-03-18T00:00:00"));
    expect(bucketStart(utc("2024-03-13T12:00:00"), "week")).toBe(utc("2024-03-11T00:00:00"));
  });

  it("lets a week span a month and a year", () => {
    // 2025-01-01 is a Wednesday; its week started on Monday 2024-12-30.
    expect(bucketStart(utc("2025-01-01T08:00:00"), "week")).toBe(utc("2024-12-30T00:00:00"));
  });

  it("cuts calendar months of every length, leap February included", () => {
    expect(bucketStart(utc("2024-02-29T23:59:59.999"), "month")).toBe(utc("2024-02-01T00:00:00"));
    expect(bucketStart(utc("2024-03-01T00:00:00"), "month")).toBe(utc("2024-03-01T00:00:00"));
    expect(bucketStart(utc("2023-12-31T23:59:59.999"), "month")).toBe(utc("2023-12-01T00:00:00"));
    expect(bucketStart(utc("2024-01-31T12:00:00"), "month")).toBe(utc("2024-01-01T00:00:00"));
  });

  it("handles times before 1970", () => {
    // 1969-12-31 was a Wednesday.
    expect(bucketStart(utc("1969-12-31T23:30:00"), "day")).toBe(utc("1969-12-31T00:00:00"));
    expect(bucketStart(utc("1969-12-31T23:30:00"), "week")).toBe(utc("1969-12-29T00:00:00"));
    expect(bucketStart(utc("1969-12-31T23:30:00"), "month")).toBe(utc("1969-12-01T00:00:00"));
  });
});

describe("aggregate", () => {
  const samples = [
    { time: utc("2024-03-10T10:05:00"), value: 4 },
    { time: utc("2024-03-10T10:59:59.999"), value: 1 },
    { time: utc("2024-03-10T11:00:00"), value: 10 },
    { time: utc("2024-03-10T10:30:00"), value: 7 },
  ];

  it("gives each hour's maximum, minimum, average and sum at the hour's start, oldest first", () => {
    const ten = utc("2024-03-10T10:00:00");
    const eleven = utc("2024-03-10T11:00:00");
    expect(aggregate(samples, "hour", "max")).toEqual([
      { time: ten, value: 7 },
      { time: eleven, value: 10 },
    ]);
    expect(aggregate(samples, "hour", "min")).toEqual([
      { time: ten, value: 1 },
      { time: eleven, value: 10 },
    ]);
    expect(aggregate(samples, "hour", "average")).toEqual([
      { time: ten, value: 4 },
      { time: eleven, value: 10 },
    ]);
    expect(aggregate(samples, "hour", "accumulated")).toEqual([
      { time: ten, value: 12 },
      { time: eleven, value: 10 },
    ]);
  });

  it("puts samples either side of a month's edge in different buckets", () => {
    const edge = [
      { time: utc("2024-02-29T23:59:59.999"), value: 2 },
      { time: utc("2024-03-01T00:00:00"), value: 3 },
      { time: utc("2024-02-01T00:00:00"), value: 5 },
    ];
    expect(aggregate(edge, "month", "accumulated")).toEqual([
      { time: utc("2024-02-01T00:00:00"), value: 7 },
      { time: utc("2024-03-01T00:00:00"), value: 3 },
    ]);
  });

  it("puts Sunday and the next Monday in different weeks", () => {
    const edge = [
      { time: utc("2024-03-18T00:00:00"), value: 1 },
      { time: utc("2024-03-17T23:59:59.999"), value: 2 },
      { time: utc("2024-03-11T00:00:00"), value: 3 },
    ];
    expect(aggregate(edge, "week", "max")).toEqual([
      { time: utc("2024-03-11T00:00:00"), value: 3 },
      { time: utc("2024-03-18T00:00:00"), value: 1 },
    ]);
  });

  it("buckets minutes and days", () => {
    const points = [
      { time: utc("2024-03-10T10:05:59"), value: 1 },
      { time: utc("2024-03-10T10:06:00"), value: 2 },
      { time: utc("2024-03-11T00:00:00"), value: 3 },
    ];
    expect(aggregate(points, "minute", "min").map((s) => s.time)).toEqual([
      utc("2024-03-10T10:05:00"),
      utc("2024-03-10T10:06:00"),
      utc("2024-03-11T00:00:00"),
    ]);
    expect(aggregate(points, "day", "accumulated")).toEqual([
      { time: utc("2024-03-10T00:00:00"), value: 3 },
      { time: utc("2024-03-11T00:00:00"), value: 3 },
    ]);
  });

  it("gives nothing for no samples", () => {
    expect(aggregate([], "day", "average")).toEqual([]);
  });

  it("ignores samples with a non-finite time or value", () => {
    const points = [
      { time: utc("2024-03-10T10:00:00"), value: NaN },
      { time: utc("2024-03-10T10:00:00"), value: Infinity },
      { time: NaN, value: 5 },
      { time: utc("2024-03-10T10:00:01"), value: 2 },
    ];
    expect(aggregate(points, "hour", "max")).toEqual([{ time: utc("2024-03-10T10:00:00"), value: 2 }]);
  });

  it("leaves out a bucket whose sum overflows", () => {
    const points = [
      { time: utc("2024-03-10T10:00:00"), value: Number.MAX_VALUE },
      { time: utc("2024-03-10T10:00:01"), value: Number.MAX_VALUE },
      { time: utc("2024-03-10T11:00:00"), value: 1 },
    ];
    expect(aggregate(points, "hour", "accumulated")).toEqual([{ time: utc("2024-03-10T11:00:00"), value: 1 }]);
    expect(aggregate(points, "hour", "max")[0]).toEqual({ time: utc("2024-03-10T10:00:00"), value: Number.MAX_VALUE });
  });
});

describe("aggregateKindOf", () => {
  it("maps aggregateType 1 to 4 to max, min, average and accumulated", () => {
    expect([1, 2, 3, 4].map(aggregateKindOf)).toEqual(["max", "min", "average", "accumulated"]);
  });

  it("gives null for an unset or unknown code", () => {
    expect(aggregateKindOf(null)).toBeNull();
    expect(aggregateKindOf(0)).toBeNull();
    expect(aggregateKindOf(5)).toBeNull();
    expect(aggregateKindOf(1.5)).toBeNull();
  });
});
