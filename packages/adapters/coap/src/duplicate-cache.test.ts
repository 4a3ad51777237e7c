import { describe, expect, it } from "vitest";
import { DuplicateCache } from "./duplicate-cache.js";

describe("duplicate cache", () => {
  it("answers a message seen within the lifetime with its answer, and forgets it after", () => {
    const c = new DuplicateCache(100, 10);
    c.remember("a", undefined, 0);
    expect(c.get("a", 10)).toMatchObject({ at: 0, reply: undefined });
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

  it("forgets in the order remembered however long it runs full, a key remembered again going by its new time", () => {
    const c = new DuplicateCache(1_000_000, 100);
    for (let i = 0; i < 10_000; i++) c.remember(`m${i}`, undefined, i);
    expect(c.size).toBe(100);
    expect(c.get("m9899", 10_000)).toBeUndefined();
    expect(c.get("m9900", 10_000)).toBeDefined();
    // m9900 is forgotten next, then remembered again: it goes by its new time, the last but one to go.
    c.remember("n0", undefined, 10_000);
    c.remember("m9900", undefined, 10_001);
    for (let i = 1; i < 99; i++) c.remember(`n${i}`, undefined, 10_001 + i);
    expect(c.size).toBe(100);
    expect(c.get("m9900", 10_100)).toMatchObject({ at: 10_001 });
  });

  it("hands back the entry, whose answer set later is what a retransmission gets", () => {
    const c = new DuplicateCache(100, 10);
    const entry = c.remember("a", undefined, 0);
    entry.reply = Buffer.from("2.04");
    expect(c.get("a", 50)?.reply).toEqual(Buffer.from("2.04"));
  });
});
