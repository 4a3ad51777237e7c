import { describe, expect, it } from "vitest";
import { DuplicateCache } from "./duplicate-cache.js";

describe("duplicate cache", () => {
  it("answers a message seen within the lifetime with its answer, and forgets it after", () => {
    const c = new DuplicateCache(100, 10);
    c.remember("a", undefined, 0);
    expect(c.get("a", 10)).toEqual({ at: 0, reply: undefined });
    c.remember("a", Buffer.from("ack"), 20);
    expect(c.get("a", 99)?.reply).toEqual(Buffer.from("ack"));
    expect(c.get("a", 100)).toBeUndefined();
    expect(c.get("b", 0)).toBeUndefined();
  });

  it("forgets the oldest past maxEntries and the expired on the next remember", () => {
    const c = new DuplicateCache(100, 2);
    c.remember("a", undefined, 0);
    c.remember("b", undefined, 1);
    c.remember("c", undefined, 2);
    expect([c.get("a", 3), c.get("b", 3), c.get("c", 3)].map(Boolean)).toEqual([false, true, true]);
    c.remember("d", undefined, 101);
    expect(c.size).toBe(2);
    expect([c.get("c", 101), c.get("d", 101)].map(Boolean)).toEqual([true, true]);
  });
});
