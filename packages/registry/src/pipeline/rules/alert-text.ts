import type { Breach, PointRule } from "./types.js";

/** Most enum members an alert's sentence lists; the rest are counted (alertDetail keeps them all). */
export const MAX_LISTED_MEMBERS = 10;

const nameOf = (p: PointRule) => (p.dataPointName.trim() === "" ? p.dataPointId : p.dataPointName);
const withUnit = (n: number, p: PointRule) =>
  p.unitSymbol === null || p.unitSymbol.trim() === "" ? String(n) : `${n} ${p.unitSymbol.trim()}`;
/** Numbers as JavaScript writes them, texts in double quotes. */
const shown = (v: number | string) => (typeof v === "number" ? String(v) : JSON.stringify(v));

function listed(members: readonly string[]): string {
  const head = members.slice(0, MAX_LISTED_MEMBERS).join(", ");
  const rest = members.length - MAX_LISTED_MEMBERS;
  return rest > 0 ? `${head} and ${rest} more` : head;
}

/**
 * The `alertName` (short, for lists) and `alertContent` (one readable
 * sentence with the value, the unit symbol of the point and the limit) of an
 * alert raised by `breach` of `point`. A blank dataPointName falls back to
 * the dataPointID.
 */
export function alertText(point: PointRule, breach: Breach): { alertName: string; alertContent: string } {
  const name = nameOf(point);
  const { measured, limit } = breach;
  switch (breach.rule) {
    case "upperLimit":
    case "lowerLimit": {
      const above = breach.rule === "upperLimit";
      const value = typeof measured === "number" ? withUnit(measured, point) : shown(measured);
      const bound = typeof limit === "number" ? withUnit(limit, point) : String(limit);
      return {
        alertName: `${name} ${above ? "above upper" : "below lower"} limit`,
        alertContent: `${name} is ${value}, ${above ? "above the upper" : "below the lower"} limit of ${bound}.`,
      };
    }
    case "fault":
      return {
        alertName: `${name} reports a fault`,
        alertContent: `${name} reports its fault value ${shown(measured)}.`,
      };
    case "enum": {
      const members = Array.isArray(limit) ? limit : [String(limit)];
      return {
        alertName: `${name} outside its allowed values`,
        alertContent: `${name} is ${shown(measured)}, which is not one of its allowed values ${listed(members)}.`,
      };
    }
  }
}
