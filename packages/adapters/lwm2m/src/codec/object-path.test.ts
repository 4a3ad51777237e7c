import { describe, expect, test } from "vitest";
import {
  childPath,
  formatObjectPath,
  isWithin,
  MAX_PATH_ID,
  parseObjectPath,
  pathDepth,
  type ObjectPath,
} from "./object-path.js";
import type { Result } from "./result.js";

const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: Result<unknown>): string => {
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.value)}`);
  return r.reason;
};

describe("parseObjectPath", () => {
  test.each([
    ["/3", { objectId: 3 }],
    ["/3/0", { objectId: 3, instanceId: 0 }],
    ["/3/0/0", { objectId: 3, instanceId: 0, resourceId: 0 }],
    ["/3/0/7/1", { objectId: 3, instanceId: 0, resourceId: 7, resourceInstanceId: 1 }],
    ["/3303/12/5700", { objectId: 3303, instanceId: 12, resourceId: 5700 }],
  ])("%s names its object, instance, resource and resource instance", (text, path) => {
    expect(value(parseObjectPath(text))).toEqual(path);
  });

  test("the leading slash may be left out, as data point ids write paths", () => {
    expect(value(parseObjectPath("3303/0/5700"))).toEqual(value(parseObjectPath("/3303/0/5700")));
  });

  test("ids at both ends of the 16-bit range are accepted at every level", () => {
    expect(value(parseObjectPath("/0/0/0/0"))).toEqual({
      objectId: 0,
      instanceId: 0,
      resourceId: 0,
      resourceInstanceId: 0,
    });
    expect(value(parseObjectPath("/65535/65535/65535/65535"))).toEqual({
      objectId: MAX_PATH_ID,
      instanceId: MAX_PATH_ID,
      resourceId: MAX_PATH_ID,
      resourceInstanceId: MAX_PATH_ID,
    });
  });

  test.each(["/65536", "/3/65536", "/3/0/99999", "/3/0/7/65536"])("%s is refused: an id is above 65535", (t) => {
    expect(reason(parseObjectPath(t))).toMatch(/above 65535/);
  });

  test.each(["/3/0/7/1/2", "/1/2/3/4/5/6"])("%s is refused: a path has at most 4 levels", (t) => {
    expect(reason(parseObjectPath(t))).toMatch(/at most 4/);
  });

  test.each(["", "/"])("%j is refused: it names no object", (t) => {
    expect(reason(parseObjectPath(t))).toMatch(/names no object/);
  });

  test.each(["//3", "/3//0", "/3/0/", "/3/"])("%s is refused for its empty segment", (t) => {
    expect(reason(parseObjectPath(t))).toMatch(/empty/);
  });

  test.each(["/03", "/3/00", "/-1", "/+3", "/3/a", "/3/0x1", "/3/1.0", "/3/ 0", "/3/0 ", "/3/1e2", "/３"])(
    "%j is refused: every id is a plain decimal without sign or leading zero",
    (t) => {
      expect(reason(parseObjectPath(t))).toMatch(/not a plain decimal/);
    },
  );
});

describe("formatObjectPath", () => {
  test("writes the canonical path with its leading slash", () => {
    expect(formatObjectPath({ objectId: 3 })).toBe("/3");
    expect(formatObjectPath({ objectId: 3, instanceId: 0, resourceId: 7, resourceInstanceId: 1 })).toBe("/3/0/7/1");
  });

  test("round-trips every depth", () => {
    for (const text of ["/0", "/1/2", "/3/0/16", "/3/0/7/1", "/65535/65535/65535/65535"])
      expect(formatObjectPath(value(parseObjectPath(text)))).toBe(text);
  });
});

describe("path relations", () => {
  const p = (t: string): ObjectPath => value(parseObjectPath(t));

  test("pathDepth counts the levels", () => {
    expect([p("/3"), p("/3/0"), p("/3/0/1"), p("/3/0/7/1")].map(pathDepth)).toEqual([1, 2, 3, 4]);
  });

  test("a path is within itself and its ancestors, never within a sibling or a descendant", () => {
    expect(isWithin(p("/3/0/7/1"), p("/3/0"))).toBe(true);
    expect(isWithin(p("/3/0"), p("/3/0"))).toBe(true);
    expect(isWithin(p("/3/1/7"), p("/3/0"))).toBe(false);
    expect(isWithin(p("/3/0"), p("/3/0/7"))).toBe(false);
    expect(isWithin(p("/33/0"), p("/3"))).toBe(false);
  });

  test("childPath descends one level and stops below a resource instance", () => {
    expect(childPath(p("/3/0"), 7)).toEqual(p("/3/0/7"));
    expect(childPath(p("/3/0/7/1"), 2)).toBeUndefined();
  });
});
