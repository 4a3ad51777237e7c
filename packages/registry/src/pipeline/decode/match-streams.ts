import { topicMatches } from "../../domain/topic-filter.js";
import { STREAM_TYPE, type StreamSpec } from "./types.js";

/**
 * The report streams an uplink on `topic` (relative to the device) belongs
 * to, in the given order: those whose topic filter matches it by MQTT rules
 * (`+` one level, `#` the rest including the parent level) and whose type is
 * 1 (device report), or 3 (gateway report) when the uplink is a gateway's own
 * (`fromGateway`). Command streams (2, 4) never match an uplink.
 */
export function matchStreams(streams: readonly StreamSpec[], topic: string, fromGateway: boolean): StreamSpec[] {
  const type = fromGateway ? STREAM_TYPE.gatewayReport : STREAM_TYPE.deviceReport;
  return streams.filter((s) => s.streamType === type && topicMatches(s.topic, topic));
}
