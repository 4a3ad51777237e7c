import { NUMERIC_POINT_TYPES } from "../../domain/data-points.js";
import { enumContains, enumMembers, numeric } from "./enum-members.js";
import { RULE_SEVERITY } from "./severity.js";
import type { Breach, DecodedValue, PointRule } from "./types.js";

/** `pointDataType` of fault points: `faultValue` is what the device reports when faulty. */
const FAULT_POINT_TYPE = 4;

/** The value as a number: its number, else its text when that spells one. */
const numberOf = (v: DecodedValue): number | null => v.number ?? (v.text === null ? null : numeric(v.text));
/** The value as measured: its text, else its number. */
const measuredOf = (v: DecodedValue): number | string | null => v.text ?? v.number;

/**
 * Whether a fault point's value is its fault value: the same text (surrounding blanks ignored), or the same number
 * when both spell one (`"1.0"` is fault value `"1"`).
 */
export function isFaultValue(point: PointRule, value: DecodedValue): boolean {
  if (point.pointDataType !== FAULT_POINT_TYPE || point.faultValue === null) return false;
  const measured = measuredOf(value);
  if (measured === null) return false;
  if (String(measured).trim() === point.faultValue.trim()) return true;
  const fault = numeric(point.faultValue);
  return fault !== null && fault === numberOf(value);
}

const breach = (rule: Breach["rule"], limit: Breach["limit"], measured: Breach["measured"]): Breach => ({
  rule,
  limit,
  measured,
  severity: RULE_SEVERITY[rule],
});

/**
 * The rules of `point` that `value` breaks, in the order upperLimit,
 * lowerLimit, fault, enum (empty when within all, or when the value is
 * empty). Limits are inclusive — a value equal to a limit is within — and
 * apply to numeric point types only; a null limit is no limit. The fault
 * rule applies to fault points (type 4) with a fault value; the enum rule
 * to any point with a usable enum ({@link enumMembers}).
 */
export function checkValue(point: PointRule, value: DecodedValue): Breach[] {
  const out: Breach[] = [];
  if (NUMERIC_POINT_TYPES.includes(point.pointDataType)) {
    const n = numberOf(value);
    if (n !== null) {
      if (point.upperLimit !== null && n > point.upperLimit) out.push(breach("upperLimit", point.upperLimit, n));
      if (point.lowerLimit !== null && n < point.lowerLimit) out.push(breach("lowerLimit", point.lowerLimit, n));
    }
  }
  const measured = measuredOf(value);
  if (measured === null) return out;
  if (isFaultValue(point, value)) out.push(breach("fault", point.faultValue!, measured));
  const members = enumMembers(point.enum);
  if (members !== null && !enumContains(members, measured)) out.push(breach("enum", members, measured));
  return out;
}
