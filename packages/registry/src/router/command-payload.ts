import { fail } from "../errors.js";
import { jsonPointValue } from "../pipeline/decode/json-value.js";
import { STREAM_DATA_TYPE, type PointSpec } from "../pipeline/decode/types.js";
import { checkValue } from "../pipeline/rules/check-value.js";
import type { PointRule } from "../pipeline/rules/types.js";

/** A data point of a command stream: what decoding and the rules need, and whether it may be commanded. */
export interface CommandPoint extends PointSpec, PointRule {
  /** 1 report only (never commanded), 2 command only, 3 both. */
  dataTransType: number;
  /** Why the point can never be commanded whatever its dataTransType (a Modbus input register), else unset. */
  readOnly?: string;
}

/** A command stream (type 2 or 4) of a product, with its points in position order. */
export interface CommandStream {
  id: number;
  /** 1 JSON (payloads are checked), 2 binary (payloads stay opaque). */
  streamDataType: number;
  /** The one topic commands of this stream go to (no wildcards). */
  topic: string;
  points: readonly CommandPoint[];
  /** Payloads must be JSON objects (a Modbus product's commands); else others pass unchecked as opaque. */
  objectsOnly?: boolean;
}

/** `dataTransType` of points that are only reported, never commanded. */
const REPORT_ONLY = 1;
/** Most point errors answered for one payload, so a huge bad payload does not make a huge answer. */
const MAX_ERRORS = 20;

/** The payload's JSON object, or undefined when it is not JSON or not an object (an opaque payload). */
function jsonObject(payload: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return undefined;
  }
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}

/** Why `raw` is not a value `point` may be commanded to, or undefined when it is: type, limits, enum. */
function valueProblem(point: CommandPoint, raw: unknown): string | undefined {
  if (point.readOnly) return point.readOnly;
  if (point.dataTransType === REPORT_ONLY) return "is a report-only data point (dataTransType 1)";
  if (raw === null || raw === undefined) return "must have a value (null is none)";
  const decoded = jsonPointValue(point, raw);
  if ("reason" in decoded) return decoded.reason;
  for (const b of checkValue(point, decoded.value)) {
    if (b.rule === "upperLimit") return `must be at most ${String(b.limit)} (upperLimit)`;
    if (b.rule === "lowerLimit") return `must be at least ${String(b.limit)} (lowerLimit)`;
    if (b.rule === "enum") return `must be one of ${(b.limit as string[]).join(", ")} (enum)`;
    // A fault point's fault value is what a faulty device reports; commanding it is not the platform's to refuse.
  }
  return undefined;
}

/**
 * The topic a command goes to, after checking its payload against the
 * product's command streams. A payload that is a JSON object, sent to the
 * topic of a JSON command stream or with no topic, must be `{dataPointID:
 * value}` of that stream's points (any JSON command stream's when no topic
 * is given): every member a point of it that may be commanded (dataTransType
 * 2 or 3) with a value of the point's type (the JSON layout of docs/data.md)
 * within its limits and enum. Otherwise FORM_INVALID names each bad member
 * as `payload.<member>`. With no topic, the command goes to the first stream
 * (by id) holding every named point; when none holds them all, FORM_INVALID
 * names `topic`. Answers `topic` unchanged, unchecked, when the product has
 * no JSON command stream, the payload is not a JSON object, or the topic is
 * no command stream's.
 */
export function commandTopic(
  streams: readonly CommandStream[],
  payload: string,
  topic: string | undefined,
): string | undefined {
  const json = streams.filter((s) => s.streamDataType === STREAM_DATA_TYPE.json);
  if (json.length === 0) return topic;
  const object = jsonObject(payload);
  if (!object && json.some((s) => s.objectsOnly))
    throw fail.form({ payload: "must be a JSON object {dataPointID: value}" });
  if (!object) return topic;
  // A Modbus slave's commands are checked whatever topic they name: the adapter writes every one.
  const candidates =
    topic === undefined || json.some((s) => s.objectsOnly) ? json : json.filter((s) => s.topic === topic);
  if (candidates.length === 0) return topic;
  const names = Object.keys(object);
  if (names.length === 0) throw fail.form({ payload: "must name at least one command data point" });
  const points = new Map<string, CommandPoint>();
  for (const s of candidates) for (const p of s.points) if (!points.has(p.dataPointId)) points.set(p.dataPointId, p);
  const errors: Record<string, string> = {};
  let count = 0;
  for (const name of names) {
    const point = points.get(name);
    const problem = point
      ? valueProblem(point, object[name])
      : topic === undefined
        ? "is not a data point of the product's command streams"
        : `is not a data point of the command stream on topic ${topic}`;
    if (problem === undefined) continue;
    errors[`payload.${name}`] = problem;
    if (++count === MAX_ERRORS) break;
  }
  if (count > 0) throw fail.form(errors);
  if (topic !== undefined) return topic;
  const stream = candidates.find((s) => names.every((n) => s.points.some((p) => p.dataPointId === n)));
  if (!stream) throw fail.form({ topic: `required: ${names.join(", ")} are not all in one command stream` });
  return stream.topic;
}
