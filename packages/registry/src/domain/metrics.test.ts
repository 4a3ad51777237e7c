import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { dataModelFixture } from "./data-model-fixtures.js";
import { deleteDataPoints } from "./data-points.js";
import {
  createMetric,
  deleteMetrics,
  getMetric,
  inferMetricType,
  listMetrics,
  metricProblems,
  updateMetric,
  type MetricFields,
} from "./metrics.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const page = { page: 1, limit: 10 };

describe("metric rules", () => {
  const fields = (over: Partial<MetricFields>): MetricFields => ({
    metricName: "m",
    metricType: 1,
    dataPointIntId: 1,
    dataStreamIntId: null,
    aggregateType: null,
    expressions: "x",
    expressionsLabel: null,
    chartType: 1,
    isShow: 0,
    productItemIntId: 0,
    remark: null,
    ...over,
  });

  it("infers an aggregate metric only from an aggregateType without expressions", () => {
    expect(inferMetricType({ aggregateType: 3 })).toBe(2);
    expect(inferMetricType({ aggregateType: 3, expressions: " " })).toBe(2);
    expect(inferMetricType({ aggregateType: 3, expressions: "x" })).toBe(1);
    expect(inferMetricType({ expressions: "x" })).toBe(1);
    expect(inferMetricType({ aggregateType: null })).toBe(1);
    expect(inferMetricType({})).toBe(1);
  });

  it("names each broken rule", () => {
    expect(metricProblems(fields({}))).toEqual({});
    expect(metricProblems(fields({ metricType: 2, aggregateType: 4, expressions: null }))).toEqual({});
    expect(metricProblems(fields({ expressions: null }))).toEqual({ expressions: expect.stringContaining("required") });
    expect(metricProblems(fields({ metricType: 2, expressions: null }))).toEqual({
      aggregateType: expect.stringContaining("required"),
    });
    expect(metricProblems(fields({ expressions: "x +" }))).toEqual({
      expressions: expect.stringMatching(/^at position 4: /),
    });
    expect(
      metricProblems(
        fields({ metricName: " ", metricType: 3, aggregateType: 5, chartType: 3, isShow: 2, productItemIntId: -1 }),
      ),
    ).toEqual({
      metricName: "required",
      metricType: expect.any(String),
      aggregateType: expect.any(String),
      chartType: expect.any(String),
      isShow: expect.any(String),
      productItemIntID: expect.any(String),
    });
  });
});

describe.each(engines)("metrics on $name", (engine) => {
  it("creates a formula metric with defaults, its product, data point name and creator", async () => {
    const { db, caller, product, point } = await dataModelFixture(engine);
    const p = await point(product, "temp");
    const m = await createMetric(
      db,
      caller,
      { metricName: " Fahrenheit ", dataPointIntId: p.id, expressions: " x * 1.8 + 32 ", expressionsLabel: "°F" },
      1_000,
    );
    expect(m).toMatchObject({
      metricName: "Fahrenheit",
      metricType: 1,
      dataPointIntId: p.id,
      dataPointName: "Point temp",
      productId: product.productId,
      productIntId: product.id,
      expressions: " x * 1.8 + 32 ",
      expressionsLabel: "°F",
      aggregateType: null,
      chartType: 1,
      isShow: 0,
      productItemIntId: 0,
      remark: null,
      dataStreamIntId: null,
      createUser: "root",
      createAt: 1_000,
      updateAt: null,
    });
    expect(await getMetric(db, caller, m.id)).toEqual(m);
  });

  it("creates an aggregate metric when only an aggregateType is sent", async () => {
    const { db, caller, product, point } = await dataModelFixture(engine);
    const p = await point(product, "temp", { pointDataType: 17 });
    const m = await createMetric(db, caller, {
      metricName: "Peak",
      dataPointIntId: p.id,
      aggregateType: 1,
      chartType: 2,
      isShow: 1,
    });
    expect(m).toMatchObject({ metricType: 2, aggregateType: 1, expressions: null, chartType: 2, isShow: 1 });
  });

  it("refuses data points that are unknown, another tenant's or not numeric, naming dataPointIntID", async () => {
    const { db, caller, other, product, eveProduct, point } = await dataModelFixture(engine);
    const eves = await point(eveProduct, "e", {}, other);
    const text = await point(product, "s", { pointDataType: 3 });
    for (const id of [9_999, eves.id]) {
      await expect(
        createMetric(db, caller, { metricName: "m", dataPointIntId: id, expressions: "x" }),
      ).rejects.toMatchObject({ code: "FORM_INVALID", errors: { dataPointIntID: "no such data point" } });
    }
    await expect(
      createMetric(db, caller, { metricName: "m", dataPointIntId: text.id, expressions: "x" }),
    ).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { dataPointIntID: expect.stringContaining("numeric") },
    });
    for (const t of [1, 15, 16, 17, 18]) {
      const p = await point(product, `n${t}`, { pointDataType: t });
      expect(
        (await createMetric(db, caller, { metricName: "m", dataPointIntId: p.id, expressions: "x" })).dataPointIntId,
      ).toBe(p.id);
    }
    expect((await listMetrics(db, caller, page)).count).toBe(5);
  });

  it("refuses a bad expression with its position and a formula without one", async () => {
    const { db, caller, product, point } = await dataModelFixture(engine);
    const p = await point(product, "temp");
    await expect(
      createMetric(db, caller, { metricName: "m", dataPointIntId: p.id, expressions: "process.exit()" }),
    ).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { expressions: expect.stringMatching(/^at position 1: unknown name "process"/) },
    });
    await expect(
      createMetric(db, caller, { metricName: "m", dataPointIntId: p.id, metricType: 1 }),
    ).rejects.toMatchObject({ errors: { expressions: expect.stringContaining("required") } });
    await expect(
      createMetric(db, caller, { metricName: "m", dataPointIntId: p.id, metricType: 2 }),
    ).rejects.toMatchObject({ errors: { aggregateType: expect.stringContaining("required") } });
  });

  it("accepts a data stream of the metric's product only, naming dataStreamIntID otherwise", async () => {
    const { db, caller, other, product, product2, eveProduct, point, stream } = await dataModelFixture(engine);
    const p = await point(product, "temp");
    const own = await stream(product, "up");
    const elsewhere = await stream(product2, "up");
    const eves = await stream(eveProduct, "up", other);
    const m = await createMetric(db, caller, {
      metricName: "m",
      dataPointIntId: p.id,
      expressions: "x",
      dataStreamIntId: own.id,
    });
    expect(m.dataStreamIntId).toBe(own.id);
    for (const s of [elsewhere.id, eves.id, 9_999]) {
      await expect(updateMetric(db, caller, m.id, { dataStreamIntId: s })).rejects.toMatchObject({
        code: "FORM_INVALID",
        errors: { dataStreamIntID: expect.any(String) },
      });
    }
  });

  it("lists metrics newest first, by product, and pages them", async () => {
    const { db, caller, other, product, product2, eveProduct, point } = await dataModelFixture(engine);
    const [a, b] = [await point(product, "a"), await point(product2, "b")];
    const m1 = await createMetric(db, caller, { metricName: "one", dataPointIntId: a.id, expressions: "x" });
    const m2 = await createMetric(db, caller, { metricName: "two", dataPointIntId: b.id, expressions: "x" });
    const m3 = await createMetric(db, caller, { metricName: "three", dataPointIntId: a.id, aggregateType: 3 });
    await createMetric(db, other, {
      metricName: "eve's",
      dataPointIntId: (await point(eveProduct, "e", {}, other)).id,
      expressions: "x",
    });
    expect((await listMetrics(db, caller, page)).items.map((m) => m.id)).toEqual([m3.id, m2.id, m1.id]);
    expect((await listMetrics(db, caller, page, { productId: product.productId })).items.map((m) => m.id)).toEqual([
      m3.id,
      m1.id,
    ]);
    expect((await listMetrics(db, caller, page, { productId: eveProduct.productId })).count).toBe(0);
    const second = await listMetrics(db, caller, { page: 2, limit: 2 });
    expect(second).toMatchObject({ count: 3, page: 2, limit: 2 });
    expect(second.items.map((m) => m.id)).toEqual([m1.id]);
  });

  it("edits a metric under the create rules, keeps its product and sets updateAt", async () => {
    const { db, caller, product, product2, point } = await dataModelFixture(engine);
    const [a, b, c, s] = [
      await point(product, "a"),
      await point(product, "b"),
      await point(product2, "c"),
      await point(product, "s", { pointDataType: 5 }),
    ];
    const m = await createMetric(
      db,
      caller,
      { metricName: "m", dataPointIntId: a.id, expressions: "x", remark: "r" },
      1_000,
    );
    const edited = await updateMetric(
      db,
      caller,
      m.id,
      {
        metricName: "n",
        dataPointIntId: b.id,
        metricType: 2,
        aggregateType: 4,
        expressions: "",
        remark: null,
        expressionsLabel: "sum",
      },
      2_000,
    );
    expect(edited).toMatchObject({
      metricName: "n",
      dataPointIntId: b.id,
      metricType: 2,
      aggregateType: 4,
      expressions: null,
      remark: null,
      expressionsLabel: "sum",
      createAt: 1_000,
      updateAt: 2_000,
    });
    await expect(updateMetric(db, caller, m.id, { dataPointIntId: c.id })).rejects.toMatchObject({
      errors: { dataPointIntID: "not a data point of the metric's product" },
    });
    await expect(updateMetric(db, caller, m.id, { dataPointIntId: s.id })).rejects.toMatchObject({
      errors: { dataPointIntID: expect.stringContaining("numeric") },
    });
    await expect(updateMetric(db, caller, m.id, { metricType: 1 })).rejects.toMatchObject({
      errors: { expressions: expect.stringContaining("required") },
    });
    await expect(updateMetric(db, caller, m.id, { expressions: "max(x" })).rejects.toMatchObject({
      errors: { expressions: expect.stringMatching(/^at position 6/) },
    });
    expect((await getMetric(db, caller, m.id)).metricName).toBe("n");
  });

  it("answers DATA_NOT_FOUND for another tenant's metric and ignores its ids on delete", async () => {
    const { db, caller, other, product, point } = await dataModelFixture(engine);
    const m = await createMetric(db, caller, {
      metricName: "m",
      dataPointIntId: (await point(product, "a")).id,
      expressions: "x",
    });
    const notFound = { code: "DATA_NOT_FOUND", errors: { metric: "not found" } };
    await expect(getMetric(db, other, m.id)).rejects.toMatchObject(notFound);
    await expect(getMetric(db, caller, 9_999)).rejects.toMatchObject(notFound);
    await expect(updateMetric(db, other, m.id, { metricName: "stolen" })).rejects.toMatchObject(notFound);
    await deleteMetrics(db, other, [m.id]);
    expect((await getMetric(db, caller, m.id)).metricName).toBe("m");
  });

  it("deletes metrics, which frees their data point for deletion", async () => {
    const { db, caller, product, point } = await dataModelFixture(engine);
    const p = await point(product, "a");
    const m = await createMetric(db, caller, { metricName: "m", dataPointIntId: p.id, expressions: "x" });
    await expect(deleteDataPoints(db, caller, [p.id])).rejects.toMatchObject({
      code: "REFERENCED_ERROR",
      errors: { metric: "m" },
    });
    await deleteMetrics(db, caller, [m.id, 9_999]);
    expect((await listMetrics(db, caller, page)).count).toBe(0);
    await deleteDataPoints(db, caller, [p.id]);
  });
});
