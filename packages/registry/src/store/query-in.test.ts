import { describe, expect, it } from "vitest";
import { queryIn, queryInGrouped } from "./query-in.js";

describe("queryIn", () => {
  it("asks each distinct value once, in IN lists of a power-of-two length filled with the last value", async () => {
    const asked: number[][] = [];
    const values = [...Array.from({ length: 600 }, (_, i) => i), 3, 3];
    const rows = await queryIn(values, async (chunk) => {
      asked.push(chunk);
      return [...new Set(chunk)].map((v) => ({ v }));
    });
    expect(asked.map((c) => c.length)).toEqual([512, 128]);
    expect(asked[1]!.slice(87)).toEqual(Array(41).fill(599));
    expect(rows.map((r) => r.v)).toEqual(Array.from({ length: 600 }, (_, i) => i));
  });

  it("pads a short list to 8 values and asks nothing for no values", async () => {
    const asked: string[][] = [];
    const query = async (chunk: string[]) => {
      asked.push(chunk);
      return chunk;
    };
    expect(await queryIn([], query)).toEqual([]);
    await queryIn(["a", "b"], query);
    expect(asked).toEqual([["a", "b", "b", "b", "b", "b", "b", "b"]]);
  });
});

describe("queryInGrouped", () => {
  it("groups the rows by device in their order, each made into its value, asking each device once", async () => {
    const asked: number[][] = [];
    const rows = [
      { deviceIntId: 2, v: "a" },
      { deviceIntId: 1, v: "b" },
      { deviceIntId: 2, v: "c" },
    ];
    const grouped = await queryInGrouped(
      [2, 1, 2],
      async (chunk) => {
        asked.push(chunk);
        return rows;
      },
      (r) => r.v,
    );
    expect(grouped).toEqual(
      new Map([
        [2, ["a", "c"]],
        [1, ["b"]],
      ]),
    );
    expect(asked).toEqual([[2, 1, 1, 1, 1, 1, 1, 1]]);
  });
});
