import type { Uplink } from "./registry-client.js";
import { MAX_TOPIC_BYTES } from "./topics.js";

/**
 * Why an uplink must not go to the registry because of its size, or undefined when it may: a payload larger than
 * `maxPayloadBytes` (IOT_MAX_MESSAGE_SIZE) or a topic longer than MAX_TOPIC_BYTES. Adapters refuse such messages as
 * soon as their protocol announces the size; this is the core's last check before an uplink is buffered, and it
 * bounds every uplink message on the registry link (payload ≤ MAX_MESSAGE_SIZE_LIMIT plus a short envelope).
 */
export function uplinkSizeProblem(
  uplink: Pick<Uplink, "topic" | "payload">,
  maxPayloadBytes: number,
): string | undefined {
  if (uplink.payload.byteLength > maxPayloadBytes)
    return `payload of ${uplink.payload.byteLength} bytes is larger than the limit of ${maxPayloadBytes} bytes (IOT_MAX_MESSAGE_SIZE)`;
  const topicBytes = Buffer.byteLength(uplink.topic, "utf8");
  if (topicBytes > MAX_TOPIC_BYTES) return `topic of ${topicBytes} bytes is longer than ${MAX_TOPIC_BYTES} bytes`;
  return undefined;
}
