import { decodeBinary } from "./decode-binary.js";
import { decodeJson } from "./decode-json.js";
import { decodeLwm2m } from "./decode-lwm2m.js";
import { matchStreams } from "./match-streams.js";
import { STREAM_DATA_TYPE, type DecodedValue, type DecodeResult, type RefusedValue, type StreamSpec } from "./types.js";

/** What an uplink yields across every stream it matches. */
export interface DecodedUplink {
  /** Ids of the matching streams, in the given order; empty when the uplink stays an event only. */
  streamIds: number[];
  /** The device's time of the values (epoch ms), from the first stream that carried one; else receive time applies. */
  deviceTime?: number;
  /** At most one value per data point: the first matching stream's. */
  values: DecodedValue[];
  /** Refusals of points that got no value from any stream, the first per point. */
  refused: RefusedValue[];
  /** Streams whose payload could not be read at all (too large, not a JSON object, unknown streamDataType). */
  failures: { streamId: number; error: string }[];
}

/** The values of `payload` read with one stream, by its streamDataType. */
export function decodeStream(stream: StreamSpec, payload: Uint8Array): DecodeResult {
  if (stream.streamDataType === STREAM_DATA_TYPE.json) return decodeJson(stream, payload);
  if (stream.streamDataType === STREAM_DATA_TYPE.binary) return decodeBinary(stream, payload);
  if (stream.streamDataType === STREAM_DATA_TYPE.lwm2m) return decodeLwm2m(stream, payload);
  return { error: `streamDataType ${stream.streamDataType} is unknown` };
}

/**
 * Decodes an uplink of `payload` on `topic` (relative to the device; a
 * gateway's own when `fromGateway`) with every stream of the product it
 * matches ({@link matchStreams}). Pure: the caller stores the values, counts
 * and logs the refusals and failures, and uses receive time when no
 * `deviceTime` is given. A point in two matching streams keeps the first
 * stream's value.
 */
export function decodeUplink(
  streams: readonly StreamSpec[],
  topic: string,
  fromGateway: boolean,
  payload: Uint8Array,
): DecodedUplink {
  const matched = matchStreams(streams, topic, fromGateway);
  const out: DecodedUplink = { streamIds: matched.map((s) => s.id), values: [], refused: [], failures: [] };
  const valued = new Set<number>();
  const refused = new Map<number, RefusedValue>();
  for (const stream of matched) {
    const result = decodeStream(stream, payload);
    if ("error" in result) {
      out.failures.push({ streamId: stream.id, error: result.error });
      continue;
    }
    if (out.deviceTime === undefined && result.deviceTime !== undefined) out.deviceTime = result.deviceTime;
    for (const value of result.values) {
      if (valued.has(value.dataPointIntId)) continue;
      valued.add(value.dataPointIntId);
      out.values.push(value);
    }
    for (const r of result.refused) if (!refused.has(r.dataPointIntId)) refused.set(r.dataPointIntId, r);
  }
  out.refused = [...refused.values()].filter((r) => !valued.has(r.dataPointIntId));
  return out;
}
