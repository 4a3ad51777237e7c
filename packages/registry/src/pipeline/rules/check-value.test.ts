import { describe, expect, it } from "vitest";
import { checkValue, isFaultValue } from "./check-value.js";
import { decoded, pointRule } from "./fixtures.js";

describe("checkValue limits", () => {
  const point = pointRule({ upperLimit: 30, lowerLimit: -10 });

  it("finds nothing for a value within the limits, and a value equal to a limit is within", () => {
    expect(checkValue(point, decoded(point, 20))).toEqual([]);
    expect(checkValue(point, decoded(point, 30))).toEqual([]);
    expect(checkValue(point, decoded(point, -10))).toEqual([]);
  });

  it("reports a value above the upper limit as a major breach", () => {
    expect(checkValue(point, decoded(point, 30.5))).toEqual([
      { rule: "upperLimit", limit: 30, measured: 30.5, severity: 2 },
    ]);
  });

  it("reports a value below the lower limit as a major breach", () => {
    expect(checkValue(point, decoded(point, -11))).toEqual([
      { rule: "lowerLimit", limit: -10, measured: -11, severity: 2 },
    ]);
  });

  it("treats a null limit as no limit", () => {
    const upperOnly = pointRule({ upperLimit: 5 });
    expect(checkValue(upperOnly, decoded(upperOnly, -1e9))).toEqual([]);
    const lowerOnly = pointRule({ lowerLimit: 5 });
    expect(checkValue(lowerOnly, decoded(lowerOnly, 1e9))).toEqual([]);
    const none = pointRule();
    expect(checkValue(none, decoded(none, 1e9))).toEqual([]);
  });

  it("checks limits on every numeric point type and on no other", () => {
    for (const pointDataType of [1, 15, 16, 17, 18, 21, 22, 25]) {
      const p = pointRule({ pointDataType, upperLimit: 1 });
      expect(checkValue(p, decoded(p, 2)).map((b) => b.rule)).toEqual(["upperLimit"]);
    }
    for (const pointDataType of [3, 5, 19, 23, 24]) {
      const p = pointRule({ pointDataType, upperLimit: 1 });
      expect(checkValue(p, decoded(p, 2))).toEqual([]);
    }
  });

  it("reads a numeric point's value from its text when it has no number", () => {
    expect(checkValue(point, decoded(point, null, "31"))).toEqual([
      { rule: "upperLimit", limit: 30, measured: 31, severity: 2 },
    ]);
    expect(checkValue(point, decoded(point, null, "hot"))).toEqual([]);
  });

  it("reports an infinite value beyond its limit", () => {
    expect(checkValue(point, decoded(point, Infinity)).map((b) => b.rule)).toEqual(["upperLimit"]);
    expect(checkValue(point, decoded(point, -Infinity)).map((b) => b.rule)).toEqual(["lowerLimit"]);
  });

  it("finds nothing for an empty value", () => {
    const p = pointRule({ upperLimit: 1, enum: "[0]" });
    expect(checkValue(p, decoded(p, null, null))).toEqual([]);
  });
});

describe("checkValue fault", () => {
  const fault = pointRule({ id: 4, dataPointId: "err", dataPointName: "Error", pointDataType: 4, faultValue: "1" });

  it("reports the fault value of a fault point as an urgent breach", () => {
    expect(checkValue(fault, decoded(fault, 1))).toEqual([{ rule: "fault", limit: "1", measured: 1, severity: 1 }]);
    expect(checkValue(fault, decoded(fault, null, "1"))).toEqual([
      { rule: "fault", limit: "1", measured: "1", severity: 1 },
    ]);
  });

  it("compares text ignoring surrounding blanks and numbers by value", () => {
    expect(isFaultValue(fault, decoded(fault, null, " 1 "))).toBe(true);
    expect(isFaultValue(fault, decoded(fault, null, "1.0"))).toBe(true);
    expect(isFaultValue(fault, decoded(fault, 1.0))).toBe(true);
    const textual = pointRule({ pointDataType: 4, faultValue: "E42" });
    expect(isFaultValue(textual, decoded(textual, null, "E42"))).toBe(true);
    expect(isFaultValue(textual, decoded(textual, null, "e42"))).toBe(false);
  });

  it("finds nothing for another value of a fault point", () => {
    expect(checkValue(fault, decoded(fault, 0))).toEqual([]);
    expect(checkValue(fault, decoded(fault, null, "ok"))).toEqual([]);
    expect(checkValue(fault, decoded(fault, null, ""))).toEqual([]);
  });

  it("applies the fault value to fault points only", () => {
    const numeric = pointRule({ pointDataType: 1, faultValue: "1" });
    expect(checkValue(numeric, decoded(numeric, 1))).toEqual([]);
    const noFault = pointRule({ pointDataType: 4, faultValue: null });
    expect(checkValue(noFault, decoded(noFault, 1))).toEqual([]);
  });
});

describe("checkValue enum", () => {
  it("reports a value outside the enum as a minor breach with the members as limit", () => {
    const p = pointRule({ pointDataType: 3, enum: '["auto","manual"]' });
    expect(checkValue(p, decoded(p, null, "off"))).toEqual([
      { rule: "enum", limit: ["auto", "manual"], measured: "off", severity: 3 },
    ]);
    expect(checkValue(p, decoded(p, null, "manual"))).toEqual([]);
  });

  it("accepts a code or a label of every stored enum format", () => {
    for (const stored of ["[0,1]", '[[0,"off"],[1,"on"]]', '[{"label":"off","value":0},{"label":"on","value":1}]']) {
      const p = pointRule({ enum: stored });
      expect(checkValue(p, decoded(p, 1))).toEqual([]);
      expect(checkValue(p, decoded(p, 2)).map((b) => b.rule)).toEqual(["enum"]);
    }
    const labelled = pointRule({ pointDataType: 3, enum: '[[0,"off"],[1,"on"]]' });
    expect(checkValue(labelled, decoded(labelled, null, "on"))).toEqual([]);
  });

  it("checks no enum when the point has none or an unusable one", () => {
    for (const stored of [null, "[]", "{}", "not json"]) {
      const p = pointRule({ enum: stored });
      expect(checkValue(p, decoded(p, 99))).toEqual([]);
    }
  });
});

describe("checkValue with several rules", () => {
  it("reports every broken rule of one point, limits first", () => {
    const p = pointRule({ upperLimit: 2, enum: "[0,1,2]" });
    expect(checkValue(p, decoded(p, 3))).toEqual([
      { rule: "upperLimit", limit: 2, measured: 3, severity: 2 },
      { rule: "enum", limit: ["0", "1", "2"], measured: 3, severity: 3 },
    ]);
  });

  it("reports a fault value that is also outside the enum twice", () => {
    const p = pointRule({ pointDataType: 4, faultValue: "9", enum: "[0,1]" });
    expect(checkValue(p, decoded(p, 9)).map((b) => b.rule)).toEqual(["fault", "enum"]);
  });
});
