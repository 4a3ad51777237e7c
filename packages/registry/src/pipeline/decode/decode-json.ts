import { jsonPointValue } from "./json-value.js";
import { epochMs } from "./time.js";
import { MAX_DECODE_PAYLOAD_BYTES, type DecodeResult, type DecodedValue, type RefusedValue } from "./types.js";
import type { StreamSpec } from "./types.js";
import { refusal } from "./values.js";

/** JSON member holding the device's own time of the values: epoch ms or ISO 8601 with offset. */
export const DEVICE_TIME_MEMBER = "ts";
/** Earliest device time accepted, epoch ms (2000-01-01T00:00:00Z): earlier ones are seconds or an unset clock. */
export const MIN_DEVICE_TIME_MS = Date.UTC(2000, 0, 1);

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The JSON document in `payload`, or why there is none (too large, not UTF-8, not JSON). */
export function parseJsonPayload(payload: Uint8Array): { doc: unknown } | { error: string } {
  if (payload.byteLength > MAX_DECODE_PAYLOAD_BYTES)
    return { error: `payload larger than ${MAX_DECODE_PAYLOAD_BYTES} bytes` };
  try {
    return { doc: JSON.parse(utf8.decode(payload)) };
  } catch (err) {
    return { error: err instanceof TypeError ? "payload is not UTF-8" : "payload is not JSON" };
  }
}

/**
 * Reads the stream's points from `members` by dataPointId, each checked against its point's type: an absent or
 * null member gives no value, a wrong one is refused alone.
 */
export function memberValues(
  stream: StreamSpec,
  members: Record<string, unknown>,
): { values: DecodedValue[]; refused: RefusedValue[] } {
  const values: DecodedValue[] = [];
  const refused: RefusedValue[] = [];
  for (const point of stream.points) {
    if (!Object.hasOwn(members, point.dataPointId)) continue;
    const raw = members[point.dataPointId];
    if (raw === null) continue;
    const outcome = jsonPointValue(point, raw);
    if ("value" in outcome) values.push(outcome.value);
    else refused.push(refusal(point, outcome.reason));
  }
  return { values, refused };
}

/**
 * The values of a JSON stream (streamDataType 1) in `payload`: a UTF-8 JSON
 * object whose top-level members named by the stream's points' dataPointId
 * are read, each checked against its point's type (see docs/data.md). An
 * absent or null member gives no value; a wrong one is refused alone. The
 * member {@link DEVICE_TIME_MEMBER} gives `deviceTime` unless a point has that
 * name; an invalid one is ignored. Fails on payloads over
 * {@link MAX_DECODE_PAYLOAD_BYTES}, invalid UTF-8 and anything but an object.
 */
export function decodeJson(stream: StreamSpec, payload: Uint8Array): DecodeResult {
  const parsed = parseJsonPayload(payload);
  if ("error" in parsed) return parsed;
  const doc = parsed.doc;
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return { error: "payload is not a JSON object" };
  const members = doc as Record<string, unknown>;
  const { values, refused } = memberValues(stream, members);
  const named = stream.points.some((p) => p.dataPointId === DEVICE_TIME_MEMBER);
  const time = named || !Object.hasOwn(members, DEVICE_TIME_MEMBER) ? undefined : epochMs(members[DEVICE_TIME_MEMBER]);
  return time !== undefined && time >= MIN_DEVICE_TIME_MS ? { deviceTime: time, values, refused } : { values, refused };
}
