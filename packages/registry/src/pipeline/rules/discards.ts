import { isFaultValue } from "./check-value.js";
import type { DecodedValue, PointRule } from "./types.js";

/**
 * Whether a message's values are dropped: a fault point (type 4) with
 * `isDiscard` 1 received its fault value. The message stays an event; only
 * its values are not stored. `points` are the product's points by id; a
 * value of a point not among them counts for nothing.
 */
export function discards(points: ReadonlyMap<number, PointRule>, values: readonly DecodedValue[]): boolean {
  return values.some((v) => {
    const p = points.get(v.dataPointIntId);
    return p !== undefined && p.isDiscard === 1 && isFaultValue(p, v);
  });
}
