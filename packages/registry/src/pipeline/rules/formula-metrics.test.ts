import { describe, expect, it } from "vitest";
import { computeFormulaMetrics, FormulaCache } from "./formula-metrics.js";
import type { DecodedValue } from "./types.js";

const value = (dataPointIntId: number, number: number | null, text: string | null = null): DecodedValue => ({
  dataPointIntId,
  dataPointId: `p${dataPointIntId}`,
  number,
  text,
});

describe("computeFormulaMetrics", () => {
  it("applies each metric's expression to its point's value, in the order of the metrics", () => {
    const metrics = [
      { id: 20, dataPointIntId: 2, expressions: "x / 10" },
      { id: 10, dataPointIntId: 1, expressions: "x * 9 / 5 + 32" },
      { id: 11, dataPointIntId: 1, expressions: "round(value)" },
    ];
    expect(computeFormulaMetrics(metrics, [value(1, 20.4), value(2, 55)], new FormulaCache())).toEqual([
      { metricIntId: 20, value: 5.5 },
      { metricIntId: 10, value: 68.72 },
      { metricIntId: 11, value: 20 },
    ]);
  });

  it("leaves out metrics whose point got no numeric value", () => {
    const metrics = [
      { id: 1, dataPointIntId: 1, expressions: "x" },
      { id: 2, dataPointIntId: 2, expressions: "x" },
      { id: 3, dataPointIntId: 3, expressions: "x" },
    ];
    expect(computeFormulaMetrics(metrics, [value(1, 4), value(2, null, "7")], new FormulaCache())).toEqual([
      { metricIntId: 1, value: 4 },
    ]);
  });

  it("leaves out a result that is not finite", () => {
    const metrics = [
      { id: 1, dataPointIntId: 1, expressions: "1 / x" },
      { id: 2, dataPointIntId: 1, expressions: "sqrt(x - 1)" },
      { id: 3, dataPointIntId: 2, expressions: "x" },
    ];
    expect(computeFormulaMetrics(metrics, [value(1, 0), value(2, Infinity)], new FormulaCache())).toEqual([]);
  });

  it("leaves out a metric whose expression does not parse", () => {
    const metrics = [
      { id: 1, dataPointIntId: 1, expressions: "process.exit()" },
      { id: 2, dataPointIntId: 1, expressions: "x +" },
      { id: 3, dataPointIntId: 1, expressions: "x + 1" },
    ];
    expect(computeFormulaMetrics(metrics, [value(1, 1)], new FormulaCache())).toEqual([{ metricIntId: 3, value: 2 }]);
  });

  it("uses the last numeric value of a point that has several in the message", () => {
    const metrics = [{ id: 1, dataPointIntId: 1, expressions: "x" }];
    expect(computeFormulaMetrics(metrics, [value(1, 1), value(1, 2), value(1, null)], new FormulaCache())).toEqual([
      { metricIntId: 1, value: 2 },
    ]);
  });

  it("works with the shared cache when none is given", () => {
    expect(computeFormulaMetrics([{ id: 1, dataPointIntId: 1, expressions: "x * 2" }], [value(1, 3)])).toEqual([
      { metricIntId: 1, value: 6 },
    ]);
  });
});

describe("FormulaCache", () => {
  it("parses an expression text once and answers the same tree after", () => {
    const cache = new FormulaCache();
    const first = cache.get("x + 1");
    expect(first).not.toBeNull();
    expect(cache.get("x + 1")).toBe(first);
    expect(cache.size).toBe(1);
  });

  it("keeps an expression that does not parse as null", () => {
    const cache = new FormulaCache();
    expect(cache.get("x +")).toBeNull();
    expect(cache.get("x +")).toBeNull();
    expect(cache.size).toBe(1);
  });

  it("answers the same text asked for twice in a row without moving it, and keeps the order of the others", () => {
    const cache = new FormulaCache(2);
    const one = cache.get("x + 1");
    expect(cache.get("x + 1")).toBe(one);
    expect(cache.get("x + 1")).toBe(one);
    cache.get("x + 2");
    cache.get("x + 3"); // "x + 1" is the oldest: it goes
    expect(cache.size).toBe(2);
    expect(cache.get("x + 1")).not.toBe(one);
    expect(cache.get("x + 1")).toEqual(one);
  });

  it("drops the least recently used expression when full", () => {
    const cache = new FormulaCache(2);
    const one = cache.get("x + 1");
    const two = cache.get("x + 2");
    expect(cache.get("x + 1")).toBe(one);
    cache.get("x + 3");
    expect(cache.size).toBe(2);
    expect(cache.get("x + 1")).toBe(one);
    const twoAgain = cache.get("x + 2");
    expect(twoAgain).not.toBe(two);
    expect(twoAgain).toEqual(two);
  });
});
