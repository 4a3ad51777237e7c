import type { DecodedValue, Location, PointSpec, RefusedValue } from "./types.js";

/** The accepted value of `point` that is a number. */
export function numberValue(point: PointSpec, n: number): DecodedValue {
  return { dataPointIntId: point.id, dataPointId: point.dataPointId, number: n, text: null };
}

/** The accepted value of `point` that is text. */
export function textValue(point: PointSpec, text: string): DecodedValue {
  return { dataPointIntId: point.id, dataPointId: point.dataPointId, number: null, text };
}

/** The accepted geolocation of `point`: text "longitude,latitude" plus the two numbers. */
export function locationValue(point: PointSpec, location: Location): DecodedValue {
  const text = `${location.longitude},${location.latitude}`;
  return { dataPointIntId: point.id, dataPointId: point.dataPointId, number: null, text, location };
}

/** The refusal of `point`'s value for `reason`. */
export function refusal(point: PointSpec, reason: string): RefusedValue {
  return { dataPointIntId: point.id, dataPointId: point.dataPointId, reason };
}

/**
 * Largest magnitude of a stored number. Beyond it no measurement is meant, and sums of up to 10^8 values (aggregate
 * metrics) would overflow a double, which PostgreSQL reports as an error.
 */
export const MAX_VALUE_MAGNITUDE = 1e300;

/** Why a value is refused for its size (or undefined): not finite, or beyond MAX_VALUE_MAGNITUDE. */
export function magnitudeProblem(v: number): string | undefined {
  if (!Number.isFinite(v)) return "must be a finite number";
  return Math.abs(v) > MAX_VALUE_MAGNITUDE ? `must be within ±${MAX_VALUE_MAGNITUDE}` : undefined;
}

/** Why a longitude/latitude pair is out of range (±180, ±90 degrees, finite), or undefined when valid. */
export function locationProblem(longitude: number, latitude: number): string | undefined {
  if (!Number.isFinite(longitude) || longitude < -180 || longitude > 180) return "longitude must be from -180 to 180";
  if (!Number.isFinite(latitude) || latitude < -90 || latitude > 90) return "latitude must be from -90 to 90";
  return undefined;
}
