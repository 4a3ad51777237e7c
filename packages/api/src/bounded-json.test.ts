import { describe, expect, it } from "vitest";
import { jsonDepth, MAX_JSON_DEPTH } from "./bounded-json.js";

const nested = (depth: number) => JSON.parse("[".repeat(depth) + "]".repeat(depth)) as unknown;

describe("jsonDepth", () => {
  it("counts nested arrays and objects, scalars being 0 deep", () => {
    expect(jsonDepth(7)).toBe(0);
    expect(jsonDepth(null)).toBe(0);
    expect(jsonDepth({})).toBe(1);
    expect(jsonDepth({ a: [1, { b: "x" }], c: [] })).toBe(3);
    expect(jsonDepth(nested(MAX_JSON_DEPTH))).toBe(MAX_JSON_DEPTH);
  });

  it("stops one level past the limit, without recursion, however deep the value is", () => {
    expect(jsonDepth(nested(100_000))).toBe(MAX_JSON_DEPTH + 1);
    expect(jsonDepth(nested(10), 4)).toBe(5);
  });
});
