import createClient from "openapi-fetch";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { paths } from "../api-types.js";
import { StoredWatch, type StoredEvent } from "./stored-watch.js";

/** A client whose `/device_events` answers from `events` (newest first, paged), counting the requests. */
function fakeApi(events: StoredEvent[]) {
  const seen = { requests: 0 };
  const fetch = async (input: Request) => {
    seen.requests++;
    const q = new URL(input.url).searchParams;
    const limit = Number(q.get("_limit"));
    const page = Number(q.get("_page") ?? 1);
    const topic = q.get("topic_like") ?? "";
    const items = events
      .filter((e) => e.topic.includes(topic))
      .sort((a, b) => b.id - a.id)
      .slice((page - 1) * limit, page * limit);
    return new Response(JSON.stringify({ items }), { headers: { "content-type": "application/json" } });
  };
  return { client: createClient<paths>({ baseUrl: "http://api.test", fetch }), seen };
}

const event = (id: number, deviceID: string, value: number, topic = "up/x"): StoredEvent => ({
  id,
  deviceID,
  topic,
  payload: JSON.stringify({ v: value }),
});
const value = (e: StoredEvent) => (JSON.parse(e.payload) as { v: number }).v;

let watch: StoredWatch | undefined;
afterEach(async () => watch?.close());

describe("StoredWatch", () => {
  it("resolves once an uplink of the device carrying the value, or a later one, is listed", async () => {
    const events = [event(1, "a", 50)];
    const { client, seen } = fakeApi(events);
    watch = await StoredWatch.start(client, { topic: "up/x", value, intervalMs: 10 });
    let three = false;
    const waits = [watch.stored("a", 3).then(() => (three = true)), watch.stored("a", 5), watch.stored("b", 1)];
    const asked = seen.requests;
    await vi.waitFor(() => expect(seen.requests).toBeGreaterThan(asked + 1)); // polled again since, twice
    // The uplink stored before the watch started does not count.
    expect(three).toBe(false);
    events.push(event(2, "a", 5), event(3, "b", 1), event(4, "c", 9, "up/other"));
    await Promise.all(waits);
    await expect(watch.stored("a", 4)).resolves.toBeUndefined();
  });

  it("rejects a value not listed within the timeout, and pages through more than 1000 new uplinks", async () => {
    const events: StoredEvent[] = [];
    const { client, seen } = fakeApi(events);
    watch = await StoredWatch.start(client, { topic: "up/x", value, intervalMs: 20, timeoutMs: 100 });
    await expect(watch.stored("a", 1)).rejects.toThrow(/not stored within 100 ms/);
    for (let i = 1; i <= 2500; i++) events.push(event(i, `d${i}`, i));
    const before = seen.requests;
    await watch.stored("d1", 1);
    expect(seen.requests - before).toBeGreaterThanOrEqual(3);
  });
});
