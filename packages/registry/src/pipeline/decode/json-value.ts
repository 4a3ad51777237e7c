import { integerBounds, integerSizeProblem } from "./integer-range.js";
import { epochMs } from "./time.js";
import { POINT_TYPE as T, type DecodedValue, type PointSpec } from "./types.js";
import { locationProblem, locationValue, MAX_VALUE_MAGNITUDE, numberValue, textValue } from "./values.js";

/** Largest finite single-precision float (FLT_MAX); a larger value does not fit a float point. */
export const FLOAT32_MAX = 3.4028234663852886e38;

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** A JSON member's value as the value of `point`, or why it is refused. */
export type JsonPointOutcome = { value: DecodedValue } | { reason: string };

const ok = (value: DecodedValue): JsonPointOutcome => ({ value });
const no = (reason: string): JsonPointOutcome => ({ reason });

function integer(point: PointSpec, raw: unknown, signed: boolean): JsonPointOutcome {
  if (typeof raw !== "number" || !Number.isInteger(raw)) return no("must be an integer");
  if (!Number.isSafeInteger(raw)) return no("must be within ±(2^53 - 1)");
  if (!signed && raw < 0) return no("must not be negative");
  if (point.binarySize !== null) {
    const problem = integerSizeProblem(point.binarySize);
    if (problem) return no(problem);
    const { min, max } = integerBounds(signed, point.binarySize);
    if (raw < min || raw > max) return no(`must be from ${min} to ${max} (${point.binarySize} bytes)`);
  }
  return ok(numberValue(point, raw));
}

function float(point: PointSpec, raw: unknown, max: number): JsonPointOutcome {
  if (typeof raw !== "number" || !Number.isFinite(raw)) return no("must be a finite number");
  if (Math.abs(raw) > max) return no(`must be within ±${max}`);
  return ok(numberValue(point, raw));
}

function flag(point: PointSpec, raw: unknown): JsonPointOutcome {
  if (raw === true || raw === 1) return ok(numberValue(point, 1));
  if (raw === false || raw === 0) return ok(numberValue(point, 0));
  return no("must be true, false, 1 or 0");
}

function hex(point: PointSpec, raw: unknown, fixed: boolean): JsonPointOutcome {
  if (typeof raw !== "string" || !HEX.test(raw)) return no("must be a string of hex digit pairs");
  if (fixed && point.binarySize !== null && raw.length !== point.binarySize * 2)
    return no(`must be exactly ${point.binarySize} bytes`);
  return ok(textValue(point, raw.toLowerCase()));
}

function location(point: PointSpec, raw: unknown): JsonPointOutcome {
  let pair: unknown[] | undefined;
  if (Array.isArray(raw)) pair = raw;
  else if (typeof raw === "string")
    pair = raw.split(",").map((s) => (s.trim() === "" || isNaN(Number(s)) ? s : Number(s)));
  else if (typeof raw === "object" && raw !== null)
    pair = [(raw as LocationMembers).longitude, (raw as LocationMembers).latitude];
  const [longitude, latitude] = pair ?? [];
  if (pair?.length !== 2 || typeof longitude !== "number" || typeof latitude !== "number")
    return no('must be [longitude, latitude], {"longitude", "latitude"} or "longitude,latitude"');
  const problem = locationProblem(longitude, latitude);
  return problem ? no(problem) : ok(locationValue(point, { longitude, latitude }));
}

type LocationMembers = { longitude?: unknown; latitude?: unknown };

/**
 * The value of `point` carried by its JSON member `raw` (never undefined or
 * null: those are absent values), checked against the point's type; the JSON
 * layout of each type is in docs/data.md. Enum membership and limits are rules,
 * not decoding, and are not checked here.
 */
export function jsonPointValue(point: PointSpec, raw: unknown): JsonPointOutcome {
  switch (point.pointDataType) {
    case T.numeric:
    case T.double:
      return float(point, raw, MAX_VALUE_MAGNITUDE);
    case T.float:
    case T.modbusFloat:
      return float(point, raw, FLOAT32_MAX);
    case T.signedInteger:
    case T.modbusSignedLong:
      return integer(point, raw, true);
    case T.unsignedInteger:
    case T.modbusUnsignedLong:
      return integer(point, raw, false);
    case T.boolean:
    case T.modbusBoolean:
    case T.bit:
      return flag(point, raw);
    case T.fault:
      if (typeof raw === "number" && Number.isFinite(raw)) return ok(numberValue(point, raw));
      return typeof raw === "string" ? ok(textValue(point, raw)) : no("must be a number or a string");
    case T.string:
    case T.variableString:
      return typeof raw === "string" ? ok(textValue(point, raw)) : no("must be a string");
    case T.fixedString:
      if (typeof raw !== "string") return no("must be a string");
      if (point.binarySize !== null && Buffer.byteLength(raw, "utf8") > point.binarySize)
        return no(`must be at most ${point.binarySize} bytes of UTF-8`);
      return ok(textValue(point, raw));
    case T.fixedBinary:
      return hex(point, raw, true);
    case T.variableBinary:
      return hex(point, raw, false);
    case T.geolocation:
      return location(point, raw);
    case T.modbusTime: {
      const ms = epochMs(raw);
      return ms === undefined ? no("must be epoch milliseconds or an ISO 8601 date-time") : ok(numberValue(point, ms));
    }
    default:
      return no(`pointDataType ${point.pointDataType} is unknown`);
  }
}
