/**
 * Rules for the topics devices speak. Devices use topics relative to their
 * mountpoint (their private namespace, ending in "/"); the adapter prefixes
 * the mountpoint so devices and tenants never see each other's traffic.
 *
 * Decisions:
 * - A leading "/" is allowed and taken literally (an empty first level):
 *   devices ported from other brokers use it, and `<mountpoint>/x` still lies
 *   inside the namespace.
 * - A leading "$" is refused: those topics are reserved for the broker, and
 *   after mounting they would no longer be hidden from "#"/"+" as MQTT requires.
 * - Empty topics, U+0000, more than MAX_TOPIC_BYTES bytes or MAX_TOPIC_LEVELS
 *   levels are refused; publish topics may not contain "+" or "#"; in filters
 *   "#" must be the whole last level and "+" a whole level.
 */

/** Longest relative topic or filter, in UTF-8 bytes (MQTT allows 65535; devices need far less). */
export const MAX_TOPIC_BYTES = 1024;
/** Most "/"-separated levels in a relative topic (the broker caps mounted topics at 100). */
export const MAX_TOPIC_LEVELS = 32;

function commonProblem(topic: string): string | undefined {
  if (topic.length === 0) return "topic is empty";
  if (topic.includes("\u0000")) return "topic contains U+0000";
  if (topic.startsWith("$")) return "topics starting with $ are reserved";
  // A UTF-16 unit is at most 3 UTF-8 bytes: only a long topic needs counting (every publish passes here).
  if (topic.length * 3 > MAX_TOPIC_BYTES && Buffer.byteLength(topic, "utf8") > MAX_TOPIC_BYTES)
    return `topic is longer than ${MAX_TOPIC_BYTES} bytes`;
  if (levels(topic) > MAX_TOPIC_LEVELS) return `topic has more than ${MAX_TOPIC_LEVELS} levels`;
  return undefined;
}

/** The topic's levels (separators + 1), counted without splitting it. */
function levels(topic: string): number {
  let n = 1;
  for (let at = topic.indexOf("/"); at !== -1; at = topic.indexOf("/", at + 1)) n++;
  return n;
}

/** Why a relative publish topic is unacceptable, or undefined when it is fine. */
export function publishTopicProblem(topic: string): string | undefined {
  const common = commonProblem(topic);
  if (common) return common;
  if (topic.includes("+") || topic.includes("#")) return "wildcards are not allowed in a publish topic";
  return undefined;
}

/** Why a relative subscription filter is unacceptable, or undefined when it is fine. */
export function filterProblem(filter: string): string | undefined {
  const common = commonProblem(filter);
  if (common) return common;
  const levels = filter.split("/");
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i]!;
    if (level.includes("#") && (level !== "#" || i !== levels.length - 1)) return "# must be the whole last level";
    if (level.includes("+") && level !== "+") return "+ must be a whole level";
  }
  return undefined;
}

/** The broker-side topic for a device's relative topic or filter. */
export function mountTopic(mountpoint: string, relative: string): string {
  return mountpoint + relative;
}

/** The device-relative topic for a broker-side one, or undefined when it lies outside the mountpoint. */
export function unmountTopic(mountpoint: string, mounted: string): string | undefined {
  if (!mountpoint || !mounted.startsWith(mountpoint) || mounted.length === mountpoint.length) return undefined;
  return mounted.slice(mountpoint.length);
}
