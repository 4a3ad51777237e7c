import { describe, expect, it } from "vitest";
import { discards } from "./discards.js";
import { decoded, pointRule } from "./fixtures.js";
import type { PointRule } from "./types.js";

const byId = (...points: PointRule[]) => new Map(points.map((p) => [p.id, p]));

describe("discards", () => {
  const temp = pointRule({ id: 1 });
  const fault = pointRule({ id: 2, dataPointId: "err", pointDataType: 4, faultValue: "1", isDiscard: 1 });
  const keep = pointRule({ id: 3, dataPointId: "warn", pointDataType: 4, faultValue: "1", isDiscard: 0 });

  it("drops a message whose discarding fault point received its fault value", () => {
    expect(discards(byId(temp, fault), [decoded(temp, 20), decoded(fault, 1)])).toBe(true);
    expect(discards(byId(temp, fault), [decoded(fault, null, "1")])).toBe(true);
  });

  it("keeps a message whose discarding fault point received another value", () => {
    expect(discards(byId(temp, fault), [decoded(temp, 20), decoded(fault, 0)])).toBe(false);
  });

  it("keeps a message when the fault point does not discard", () => {
    expect(discards(byId(temp, keep), [decoded(temp, 20), decoded(keep, 1)])).toBe(false);
    const unset = { ...fault, isDiscard: null };
    expect(discards(byId(unset), [decoded(unset, 1)])).toBe(false);
  });

  it("keeps a message without a value of the fault point, or with values of unknown points", () => {
    expect(discards(byId(temp, fault), [decoded(temp, 1)])).toBe(false);
    expect(discards(byId(temp), [decoded(fault, 1)])).toBe(false);
    expect(discards(byId(fault), [])).toBe(false);
  });
});
