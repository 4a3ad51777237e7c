import { describe, expect, it } from "vitest";
import { RepresentationCache } from "./representation-cache.js";

const rep = (bytes: number, tag = 1) => ({ code: "2.05", payload: Buffer.alloc(bytes), etag: Buffer.from([tag]) });

describe("representation cache", () => {
  it("serves what was put under a key, the newest replacing the older", () => {
    const c = new RepresentationCache({ maxEntries: 10, maxBytes: 1000, ttlMs: 100 });
    c.put("k", rep(10, 1), 0);
    c.put("k", rep(10, 2), 1);
    expect(c.get("k", 2)?.etag).toEqual(Buffer.from([2]));
    expect(c.get("other", 2)).toBeUndefined();
  });

  it("drops an entry no block was asked of for ttlMs, and keeps one that is being fetched", () => {
    const c = new RepresentationCache({ maxEntries: 10, maxBytes: 1000, ttlMs: 100 });
    c.put("idle", rep(10), 0);
    c.put("busy", rep(10), 0);
    expect(c.get("busy", 90)).toBeDefined();
    expect(c.get("idle", 100)).toBeUndefined();
    expect(c.get("busy", 180)).toBeDefined();
    expect(c.size).toBe(1);
  });

  it("evicts the least recently used past maxEntries or maxBytes", () => {
    const c = new RepresentationCache({ maxEntries: 2, maxBytes: 100, ttlMs: 1000 });
    c.put("a", rep(10), 0);
    c.put("b", rep(10), 1);
    c.get("a", 2);
    c.put("c", rep(10), 3);
    expect([c.get("a", 4), c.get("b", 4), c.get("c", 4)].map(Boolean)).toEqual([true, false, true]);
    c.put("d", rep(95), 5);
    expect([c.get("a", 6), c.get("c", 6), c.get("d", 6)].map(Boolean)).toEqual([false, false, true]);
  });
});
