import { memberValues, MIN_DEVICE_TIME_MS, parseJsonPayload } from "./decode-json.js";
import type { DecodeResult, StreamSpec } from "./types.js";

/** Most content entries read from one answer or notification. */
const MAX_ENTRIES = 10_000;

/**
 * The values in an LwM2M adapter's answer or notification (`up/resp`, `up/notify`): a JSON object whose
 * `data.content` is `[{path, value, time?}]`. A point whose dataPointId is an entry's object path, with or without
 * its leading slash (`3303/0/5700`), gets that entry's value, checked against its type as a JSON member is. The
 * latest entry `time` (epoch seconds, SenML) is the device's time of the values. An answer without content (an
 * error code, a write's 2.04) gives no values; anything but that shape fails.
 */
export function decodeLwm2m(stream: StreamSpec, payload: Uint8Array): DecodeResult {
  const parsed = parseJsonPayload(payload);
  if ("error" in parsed) return parsed;
  const data = (parsed.doc as { data?: { content?: unknown } } | null)?.data;
  if (typeof data !== "object" || data === null) return { error: "payload has no data object" };
  const content = data.content ?? [];
  if (!Array.isArray(content)) return { error: "data.content is not an array" };
  const members: Record<string, unknown> = {};
  let latest: number | undefined;
  for (const entry of content.slice(0, MAX_ENTRIES) as unknown[]) {
    const e = entry as { path?: unknown; value?: unknown; time?: unknown } | null;
    if (typeof e?.path !== "string") continue;
    const bare = e.path.replace(/^\//, "");
    members[bare] = members[`/${bare}`] = e.value ?? null;
    if (typeof e.time === "number" && Number.isFinite(e.time)) latest = Math.max(latest ?? 0, e.time * 1000);
  }
  const { values, refused } = memberValues(stream, members);
  return latest !== undefined && latest >= MIN_DEVICE_TIME_MS
    ? { deviceTime: Math.round(latest), values, refused }
    : { values, refused };
}
