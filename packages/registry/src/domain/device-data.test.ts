import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { createAppTemplate } from "./app-templates.js";
import { dataModelFixture } from "./data-model-fixtures.js";
import { deviceConsole, metricsData, originalData, SERIES_MAX_POINTS, TIME_UNITS } from "./device-data.js";
import { createMetric } from "./metrics.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const page = { page: 1, limit: 10 };
const NOW = 1_700_000_000_000;

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
      msgKey: `m${i}`,
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

  it("gives each metric of the product its value from the latest sample, by metricType", async () => {
    const { db, caller, product, product2, point, device, storeValue } = await dataModelFixture(engine);
    const [temp, other] = [await point(product, "temp"), await point(product2, "x")];
    const d = await device("d");
    const f = await createMetric(db, caller, { metricName: "F", dataPointIntId: temp.id, expressions: "x * 1.8 + 32" });
    const inv = await createMetric(db, caller, {
      metricName: "inverse",
      dataPointIntId: temp.id,
      expressions: "1 / x",
    });
    const peak = await createMetric(db, caller, { metricName: "peak", dataPointIntId: temp.id, aggregateType: 1 });
    await createMetric(db, caller, { metricName: "elsewhere", dataPointIntId: other.id, expressions: "x" });
    expect((await metricsData(db, caller, d.deviceId)).map((m) => [m.id, m.metricData])).toEqual([
      [f.id, { time: [], value: [] }],
      [inv.id, { time: [], value: [] }],
      [peak.id, { time: [], value: [] }],
    ]);
    await storeValue(d.id, temp.id, "100", NOW);
    const all = await metricsData(db, caller, d.deviceId);
    expect(all.map((m) => [m.metricName, m.metricData])).toEqual([
      ["F", { time: [NOW], value: [212] }],
      ["inverse", { time: [NOW], value: [0.01] }],
      ["peak", { time: [NOW], value: [100] }],
    ]);
    expect(all[0]).toMatchObject({ productId: product.productId, dataPointName: "Point temp", metricType: 1 });
    expect((await metricsData(db, caller, d.deviceId, { metricType: 2 })).map((m) => m.id)).toEqual([peak.id]);
    await db.updateTable("devicePointValues").set({ value: "0" }).execute();
    expect((await metricsData(db, caller, d.deviceId, { metricType: 1 })).map((m) => m.metricData.value)).toEqual([
      [32],
      [],
    ]);
  });
});
