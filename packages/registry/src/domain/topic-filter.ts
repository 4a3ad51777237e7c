/** Longest topic filter accepted, in UTF-8 bytes (MQTT allows 65535; policies and subscriptions need far less). */
export const MAX_TOPIC_FILTER_BYTES = 1024;

/**
 * Why `filter` is not a valid MQTT topic filter relative to a device's
 * namespace, or undefined when it is. MQTT 3.1.1 §4.7: `+` fills a whole
 * level, `#` is a whole level and the last one; no NUL (§1.5.3). A leading
 * `$` is refused (those topics belong to the broker), as is anything longer
 * than {@link MAX_TOPIC_FILTER_BYTES} bytes.
 */
export function topicFilterProblem(filter: string): string | undefined {
  if (filter.length === 0) return "required";
  if (Buffer.byteLength(filter, "utf8") > MAX_TOPIC_FILTER_BYTES) return `at most ${MAX_TOPIC_FILTER_BYTES} bytes`;
  if (filter.includes("\u0000")) return "must not contain NUL";
  if (filter.startsWith("$")) return "must not start with $";
  const levels = filter.split("/");
  for (const [i, level] of levels.entries()) {
    if (level.includes("+") && level !== "+") return "+ must fill a whole topic level";
    if (level.includes("#") && (level !== "#" || i !== levels.length - 1))
      return "# must be the whole last topic level";
  }
  return undefined;
}

/**
 * True when the concrete `topic` matches the MQTT `filter` (MQTT 3.1.1 §4.7):
 * `+` fills exactly one level, `#` the remaining levels including none (so
 * `a/#` matches `a`), other levels compare exactly. A wildcard in the first
 * level does not match a topic starting with `$` (§4.7.2). Both are relative
 * to the same namespace; the filter is assumed valid ({@link topicFilterProblem}).
 */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split("/");
  const t = topic.split("/");
  if (topic.startsWith("$") && (f[0] === "+" || f[0] === "#")) return false;
  for (let i = 0; i < f.length; i++) {
    if (f[i] === "#") return true;
    if (i >= t.length) return false;
    if (f[i] !== "+" && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}
