import type { DecodedValue, PointRule } from "./types.js";

/** A numeric point (type 1) without rules; `over` sets any field. Test helper. */
export function pointRule(over: Partial<PointRule> = {}): PointRule {
  return {
    id: 1,
    dataPointId: "temp",
    dataPointName: "Temperature",
    pointDataType: 1,
    upperLimit: null,
    lowerLimit: null,
    faultValue: null,
    isDiscard: null,
    enum: null,
    unitSymbol: null,
    ...over,
  };
}

/** A decoded value of point `point` (id and dataPointID taken from it). Test helper. */
export function decoded(point: PointRule, number: number | null, text: string | null = null): DecodedValue {
  return { dataPointIntId: point.id, dataPointId: point.dataPointId, number, text };
}
