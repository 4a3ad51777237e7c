import type { TopicPolicy } from "./registry-client.js";

/** What a device wants to do with a topic: publish to it or subscribe to it. */
export type PolicyAction = "publish" | "subscribe";

/** True when the MQTT filter matches the concrete topic ("+" one level, "#" the rest, even none). */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split("/");
  const t = topic.split("/");
  for (let i = 0; i < f.length; i++) {
    if (f[i] === "#") return true;
    if (i >= t.length) return false;
    if (f[i] !== "+" && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

/** True when some topic matches both filters (a deny overlapping a subscription taints it). */
export function filtersOverlap(a: string, b: string): boolean {
  const x = a.split("/");
  const y = b.split("/");
  for (let i = 0; ; i++) {
    const p = x[i];
    const q = y[i];
    if (p === "#" || q === "#") return true;
    if (p === undefined || q === undefined) return p === undefined && q === undefined;
    if (p !== "+" && q !== "+" && p !== q) return false;
  }
}

/** True when every topic matching `specific` also matches `general` (an allow must cover the whole subscription). */
export function filterCovers(general: string, specific: string): boolean {
  const g = general.split("/");
  const s = specific.split("/");
  for (let i = 0; ; i++) {
    const p = g[i];
    const q = s[i];
    if (p === "#") return true;
    if (p === undefined || q === undefined) return p === undefined && q === undefined;
    if (q === "#") return false;
    if (p === "+") continue;
    if (q === "+" || p !== q) return false;
  }
}

/**
 * The policy decision for one device action on a relative topic or filter.
 * Access is a bit set (1 publish, 2 subscribe, 3 both). A matching deny wins
 * over a matching allow; with no match `defaultAllow` decides. For a
 * subscription filter, a deny "matches" when it overlaps the filter (some
 * topic the subscription would receive is denied) and an allow "matches" only
 * when it covers the whole filter; for concrete topics both mean plain MQTT
 * matching.
 */
export function isAllowed(
  policies: readonly TopicPolicy[],
  action: PolicyAction,
  topic: string,
  defaultAllow: boolean,
): boolean {
  const bit = action === "publish" ? 1 : 2;
  let allowed = false;
  for (const p of policies) {
    if ((p.access & bit) === 0) continue;
    if (!p.allow && filtersOverlap(p.topic, topic)) return false;
    if (p.allow && filterCovers(p.topic, topic)) allowed = true;
  }
  return allowed || defaultAllow;
}
