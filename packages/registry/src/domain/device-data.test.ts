import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { createAppTemplate } from "./app-templates.js";
import { dataModelFixture } from "./data-model-fixtures.js";
import {
  aggregateWindow,
  deviceConsole,
  metricsData,
  originalData,
  SERIES_MAX_POINTS,
  TIME_UNITS,
} from "./device-data.js";
import { createMetric } from "./metrics.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const page = { page: 1, limit: 10 };
const NOW = 1_700_000_000_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe.each(engines)("device data on $name", (engine) => {
  it("shows the product's templates on a device's console with the device's current values", async () => {
    const { db, caller, product, product2, point, device, storeValue } = await dataModelFixture(engine);
    const [sw, level] = [await point(product, "sw", { pointDataType: 5 }), await point(product, "level")];
    const [d, twin] = [await device("d"), await device("twin")];
    const a = await createAppTemplate(db, caller, {
      productId: product.productId,
      templateName: "switch",
      templateType: 1,
      dataPointIntId: sw.id,
    });
    const b = await createAppTemplate(db, caller, {
      productId: product.productId,
      templateName: "level",
      templateType: 1,
      dataPointIntId: level.id,
    });
    const c = await createAppTemplate(db, caller, {
      productId: product.productId,
      templateName: "none",
      templateType: 1,
    });
    await createAppTemplate(db, caller, {
      productId: product2.productId,
      templateName: "other product",
      templateType: 1,
    });
    await storeValue(d.id, sw.id, "1", NOW);
    await storeValue(twin.id, level.id, "42", NOW);
    const r = await deviceConsole(db, caller, d.id, page);
    expect(r).toMatchObject({ count: 3, page: 1, limit: 10 });
    expect(r.items.map((t) => [t.id, t.value])).toEqual([
      [c.id, null],
      [b.id, null],
      [a.id, "1"],
    ]);
    expect((await deviceConsole(db, caller, twin.id, page)).items.map((t) => t.value)).toEqual([null, "42", null]);
  });

  it("gives an LwM2M template naming objectID/instanceID/itemID the value of the point named by that path", async () => {
    const { db, caller, product, point, device, storeValue } = await dataModelFixture(engine);
    const temp = await point(product, "3303/0/5700");
    const d = await device("meter");
    const t = await createAppTemplate(db, caller, {
      productId: product.productId,
      templateName: "temperature",
      templateType: 1,
      objectId: "3303",
      instanceId: "0",
      itemId: "5700",
    });
    const unknown = await createAppTemplate(db, caller, {
      productId: product.productId,
      templateName: "humidity",
      templateType: 1,
      objectId: "3304",
      instanceId: "0",
      itemId: "5700",
    });
    await storeValue(d.id, temp.id, "21.5", NOW);
    const r = await deviceConsole(db, caller, d.id, page);
    expect(r.items.map((x) => [x.id, x.value])).toEqual([
      [unknown.id, null],
      [t.id, "21.5"],
    ]);
  });

  it("answers DATA_NOT_FOUND for another tenant's or unknown device on every view", async () => {
    const { db, caller, other, device } = await dataModelFixture(engine);
    const d = await device("d");
    const notFound = { code: "DATA_NOT_FOUND", errors: { device: "not found" } };
    await expect(deviceConsole(db, other, d.id, page)).rejects.toMatchObject(notFound);
    await expect(deviceConsole(db, caller, 9_999, page)).rejects.toMatchObject(notFound);
    await expect(originalData(db, other, d.deviceId)).rejects.toMatchObject(notFound);
    await expect(originalData(db, caller, "nope")).rejects.toMatchObject(notFound);
    await expect(metricsData(db, other, d.deviceId)).rejects.toMatchObject(notFound);
  });

  it("gives original data of each numeric reported point: its stored series inside the window, oldest first", async () => {
    const { db, caller, product, point, device, storeSample } = await dataModelFixture(engine);
    const temp = await point(product, "temp", { pointDataType: 17, dataTransType: 1 });
    const hum = await point(product, "hum", { dataTransType: 3 });
    const old = await point(product, "old", { pointDataType: 16 });
    await point(product, "cmd", { dataTransType: 2 });
    await point(product, "name", { pointDataType: 3 });
    const d = await device("d");
    const other = await device("other");
    await storeSample(d.id, temp.id, 21.5, NOW - 1_000);
    await storeSample(d.id, temp.id, 20, NOW - 5_000);
    await storeSample(other.id, temp.id, 99, NOW - 1_000);
    await storeSample(d.id, old.id, 7, NOW - TIME_UNITS.day - 1);
    const day = await originalData(db, caller, d.deviceId, { timeUnit: "day", now: NOW });
    expect(day).toEqual([
      {
        dataPointIntId: temp.id,
        dataPointName: "Point temp",
        originalData: { time: [NOW - 5_000, NOW - 1_000], value: [20, 21.5] },
      },
      { dataPointIntId: hum.id, dataPointName: "Point hum", originalData: { time: [], value: [] } },
      { dataPointIntId: old.id, dataPointName: "Point old", originalData: { time: [], value: [] } },
    ]);
    const week = await originalData(db, caller, d.deviceId, { timeUnit: "week", now: NOW });
    expect(week.find((e) => e.dataPointIntId === old.id)?.originalData).toEqual({
      time: [NOW - TIME_UNITS.day - 1],
      value: [7],
    });
    // An explicit window, bounds included.
    const between = await originalData(db, caller, d.deviceId, { start: NOW - 5_000, end: NOW - 2_000 });
    expect(between[0]!.originalData).toEqual({ time: [NOW - 5_000], value: [20] });
  });

  it("caps a series at its newest SERIES_MAX_POINTS values", async () => {
    const { db, caller, product, point, device } = await dataModelFixture(engine);
    const temp = await point(product, "temp", { pointDataType: 17, dataTransType: 1 });
    const d = await device("d");
    const rows = Array.from({ length: SERIES_MAX_POINTS + 5 }, (_, i) => ({
      tenantId: caller.tenantId,
      deviceIntId: d.id,
      dataPointIntId: temp.id,
      eventId: i,
      valueTime: NOW - 10_000 + i,
      receivedAt: NOW,
      numValue: i,
      textValue: null,
    }));
    for (let i = 0; i < rows.length; i += 200)
      await db
        .insertInto("pointValues")
        .values(rows.slice(i, i + 200))
        .execute();
    const [series] = await originalData(db, caller, d.deviceId, { now: NOW });
    expect(series!.originalData.value).toHaveLength(SERIES_MAX_POINTS);
    expect(series!.originalData.value[0]).toBe(5);
    expect(series!.originalData.value.at(-1)).toBe(SERIES_MAX_POINTS + 4);
  });

  it("gives formula metrics their stored series inside the window, oldest first, by metricType", async () => {
    const { db, caller, product, product2, point, device, storeMetric } = await dataModelFixture(engine);
    const [temp, other] = [await point(product, "temp"), await point(product2, "x")];
    const [d, twin] = [await device("d"), await device("twin")];
    const f = await createMetric(db, caller, { metricName: "F", dataPointIntId: temp.id, expressions: "x * 1.8 + 32" });
    const peak = await createMetric(db, caller, { metricName: "peak", dataPointIntId: temp.id, aggregateType: 1 });
    await createMetric(db, caller, { metricName: "elsewhere", dataPointIntId: other.id, expressions: "x" });
    expect((await metricsData(db, caller, d.deviceId, { now: NOW })).map((m) => [m.id, m.metricData])).toEqual([
      [f.id, { time: [], value: [] }],
      [peak.id, { time: [], value: [] }],
    ]);
    await storeMetric(d.id, f.id, 212, NOW - 1_000);
    await storeMetric(d.id, f.id, 32, NOW - 5_000);
    await storeMetric(d.id, f.id, 50, NOW - TIME_UNITS.day - 1);
    await storeMetric(twin.id, f.id, 99, NOW - 1_000);
    const day = await metricsData(db, caller, d.deviceId, { metricType: 1, now: NOW });
    expect(day.map((m) => [m.metricName, m.metricData])).toEqual([
      ["F", { time: [NOW - 5_000, NOW - 1_000], value: [32, 212] }],
    ]);
    expect(day[0]).toMatchObject({ productId: product.productId, dataPointName: "Point temp", metricType: 1 });
    const week = await metricsData(db, caller, d.deviceId, { metricType: 1, timeUnit: "week", now: NOW });
    expect(week[0]!.metricData.value).toEqual([50, 32, 212]);
    const minute = await metricsData(db, caller, d.deviceId, { metricType: 1, timeUnit: "minute", now: NOW + 57_000 });
    expect(minute[0]!.metricData).toEqual({ time: [NOW - 1_000], value: [212] });
    const between = await metricsData(db, caller, d.deviceId, { metricType: 1, start: NOW - 5_000, end: NOW - 2_000 });
    expect(between[0]!.metricData).toEqual({ time: [NOW - 5_000], value: [32] });
    expect((await metricsData(db, caller, d.deviceId, { metricType: 2 })).map((m) => m.id)).toEqual([peak.id]);
  });

  it("caps a formula metric's series at its newest SERIES_MAX_POINTS values", async () => {
    const { db, caller, product, point, device } = await dataModelFixture(engine);
    const temp = await point(product, "temp");
    const d = await device("d");
    const f = await createMetric(db, caller, { metricName: "F", dataPointIntId: temp.id, expressions: "x" });
    const rows = Array.from({ length: SERIES_MAX_POINTS + 5 }, (_, i) => ({
      tenantId: caller.tenantId,
      deviceIntId: d.id,
      metricIntId: f.id,
      eventId: i,
      valueTime: NOW - 10_000 + i,
      value: i,
    }));
    for (let i = 0; i < rows.length; i += 200)
      await db
        .insertInto("metricValues")
        .values(rows.slice(i, i + 200))
        .execute();
    const [m] = await metricsData(db, caller, d.deviceId, { now: NOW });
    expect(m!.metricData.value).toHaveLength(SERIES_MAX_POINTS);
    expect([m!.metricData.value[0], m!.metricData.value.at(-1)]).toEqual([5, SERIES_MAX_POINTS + 4]);
  });

  it("aggregates a point's values per day over the last 30 days by aggregateType, then applies expressions", async () => {
    const { db, caller, product, point, device, storeSample } = await dataModelFixture(engine);
    const temp = await point(product, "temp");
    const [d, twin] = [await device("d"), await device("twin")];
    const aggregateMetric = (metricName: string, aggregateType: number, expressions?: string) =>
      createMetric(db, caller, { metricName, dataPointIntId: temp.id, metricType: 2, aggregateType, expressions });
    await aggregateMetric("max", 1);
    await aggregateMetric("min", 2);
    await aggregateMetric("average", 3);
    await aggregateMetric("sum", 4);
    await aggregateMetric("sum x 10", 4, "x * 10");
    const today = Date.UTC(2023, 10, 14);
    const firstDay = today - 29 * DAY;
    for (const [value, at] of [
      [10, NOW - 1_000],
      [20, NOW - 2_000],
      [-4, today],
      [3, NOW - DAY],
      [7, firstDay],
      [1_000, firstDay - 1],
    ] as const)
      await storeSample(d.id, temp.id, value, at);
    await storeSample(d.id, temp.id, "hot", NOW);
    await storeSample(twin.id, temp.id, 500, NOW);
    const r = await metricsData(db, caller, d.deviceId, { now: NOW });
    const times = [firstDay, today - DAY, today];
    expect(r.map((m) => [m.metricName, m.metricData])).toEqual([
      ["max", { time: times, value: [7, 3, 20] }],
      ["min", { time: times, value: [7, 3, -4] }],
      ["average", { time: times, value: [7, 3, 26 / 3] }],
      ["sum", { time: times, value: [7, 3, 26] }],
      ["sum x 10", { time: times, value: [70, 30, 260] }],
    ]);
    expect(aggregateWindow("day", { now: NOW })).toEqual({ start: firstDay, end: NOW });
  });

  it("aggregates per Monday-based week and calendar month, averaging every value rather than daily averages", async () => {
    const { db, caller, product, point, device, storeSample } = await dataModelFixture(engine);
    const temp = await point(product, "temp");
    const d = await device("d");
    const m = (metricName: string, aggregateType: number) =>
      createMetric(db, caller, { metricName, dataPointIntId: temp.id, aggregateType });
    await m("average", 3);
    await m("sum", 4);
    // NOW is Tuesday 2023-11-14: its week starts Monday the 13th.
    for (const [value, at] of [
      [1, Date.UTC(2023, 10, 13, 1)],
      [2, Date.UTC(2023, 10, 13, 2)],
      [6, NOW],
      [4, Date.UTC(2023, 10, 12, 23, 59)],
      [8, Date.UTC(2023, 9, 31, 12)],
      [100, Date.UTC(2021, 5, 1)],
      [1_000, Date.UTC(2021, 5, 1) - 1],
    ] as const)
      await storeSample(d.id, temp.id, value, at);
    const weeks = await metricsData(db, caller, d.deviceId, { timeUnit: "week", now: NOW });
    const weekTimes = [Date.UTC(2023, 9, 30), Date.UTC(2023, 10, 6), Date.UTC(2023, 10, 13)];
    expect(weeks.map((x) => x.metricData)).toEqual([
      { time: weekTimes, value: [8, 4, 3] },
      { time: weekTimes, value: [8, 4, 9] },
    ]);
    const months = await metricsData(db, caller, d.deviceId, { timeUnit: "month", now: NOW });
    const monthTimes = [Date.UTC(2021, 5, 1), Date.UTC(2023, 9, 1), Date.UTC(2023, 10, 1)];
    expect(months.map((x) => x.metricData)).toEqual([
      { time: monthTimes, value: [100, 8, 13 / 4] },
      { time: monthTimes, value: [100, 8, 13] },
    ]);
    expect(aggregateWindow("month", { now: NOW }).start).toBe(Date.UTC(2021, 5, 1));
    expect(aggregateWindow("week", { now: NOW }).start).toBe(Date.UTC(2023, 10, 13) - 29 * 7 * DAY);
  });

  it("aggregates per minute and hour inside an explicit window, counting only the values inside it", async () => {
    const { db, caller, product, point, device, storeSample } = await dataModelFixture(engine);
    const temp = await point(product, "temp");
    const d = await device("d");
    await createMetric(db, caller, { metricName: "sum", dataPointIntId: temp.id, aggregateType: 4 });
    const hour = Date.UTC(2023, 10, 14, 10);
    for (const [value, at] of [
      [1, hour + 10 * MINUTE],
      [2, hour + 10 * MINUTE + 59_999],
      [4, hour + 11 * MINUTE],
      [8, hour + 65 * MINUTE],
      [16, hour + 2 * HOUR],
    ] as const)
      await storeSample(d.id, temp.id, value, at);
    const window = { start: hour + 10 * MINUTE + 1, end: hour + 2 * HOUR - 1 };
    const minutes = await metricsData(db, caller, d.deviceId, { timeUnit: "minute", ...window });
    expect(minutes[0]!.metricData).toEqual({
      time: [hour + 10 * MINUTE, hour + 11 * MINUTE, hour + 65 * MINUTE],
      value: [2, 4, 8],
    });
    const hours = await metricsData(db, caller, d.deviceId, { timeUnit: "hour", ...window });
    expect(hours[0]!.metricData).toEqual({ time: [hour, hour + HOUR], value: [6, 8] });
    expect(
      (await metricsData(db, caller, d.deviceId, { timeUnit: "minute", now: hour + 11 * MINUTE }))[0]!.metricData,
    ).toEqual({ time: [hour + 10 * MINUTE, hour + 11 * MINUTE], value: [3, 4] });
  });

  it("keeps an aggregate's newest SERIES_MAX_POINTS buckets", async () => {
    const { db, caller, product, point, device } = await dataModelFixture(engine);
    const temp = await point(product, "temp");
    const d = await device("d");
    await createMetric(db, caller, { metricName: "max", dataPointIntId: temp.id, aggregateType: 1 });
    const start = Date.UTC(2023, 0, 1);
    const rows = Array.from({ length: SERIES_MAX_POINTS + 5 }, (_, i) => ({
      tenantId: caller.tenantId,
      deviceIntId: d.id,
      dataPointIntId: temp.id,
      eventId: i,
      valueTime: start + i * MINUTE + 30_000,
      receivedAt: NOW,
      numValue: i,
      textValue: null,
    }));
    for (let i = 0; i < rows.length; i += 200)
      await db
        .insertInto("pointValues")
        .values(rows.slice(i, i + 200))
        .execute();
    const [m] = await metricsData(db, caller, d.deviceId, { timeUnit: "minute", start, end: NOW });
    expect(m!.metricData.value).toHaveLength(SERIES_MAX_POINTS);
    expect([m!.metricData.time[0], m!.metricData.value[0]]).toEqual([start + 5 * MINUTE, 5]);
    expect(m!.metricData.value.at(-1)).toBe(SERIES_MAX_POINTS + 4);
  });
});
