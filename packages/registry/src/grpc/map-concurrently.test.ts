import { describe, expect, it } from "vitest";
import { mapConcurrently } from "./map-concurrently.js";

describe("mapConcurrently", () => {
  it("answers the results in the items' order whatever order the calls finish in", async () => {
    const results = await mapConcurrently([30, 10, 20, 0], 2, async (ms, i) => {
      await new Promise((r) => setTimeout(r, ms));
      return `${i}:${ms}`;
    });
    expect(results).toEqual(["0:30", "1:10", "2:20", "3:0"]);
  });

  it("never runs more than the limit at once, and runs every item", async () => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    await mapConcurrently(
      Array.from({ length: 20 }, (_, i) => i),
      3,
      async (item) => {
        most = Math.max(most, ++running);
        await new Promise((r) => setImmediate(r));
        seen.push(item);
        running--;
      },
    );
    expect(most).toBe(3);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it("rejects with the first failure", async () => {
    await expect(
      mapConcurrently([1, 2, 3], 2, async (n) => {
        if (n === 2) throw new Error("store down");
        return n;
      }),
    ).rejects.toThrow("store down");
  });

  it("answers an empty list for no items", async () => {
    expect(await mapConcurrently([], 4, async () => 1)).toEqual([]);
  });
});
