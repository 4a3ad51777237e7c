import { describe, expect, it } from "vitest";
import { filterProblem, mountTopic, publishTopicProblem, unmountTopic } from "./topics.js";

describe("publishTopicProblem", () => {
  it("accepts plain relative topics, including a leading slash", () => {
    expect(publishTopicProblem("data")).toBeUndefined();
    expect(publishTopicProblem("devices/child-1/temp")).toBeUndefined();
    expect(publishTopicProblem("/legacy/topic")).toBeUndefined();
  });

  it("refuses empty, NUL, $-prefixed and wildcard topics", () => {
    expect(publishTopicProblem("")).toMatch(/empty/);
    expect(publishTopicProblem("a\u0000b")).toMatch(/U\+0000/);
    expect(publishTopicProblem("$SYS/x")).toMatch(/reserved/);
    expect(publishTopicProblem("a/+")).toMatch(/wildcards/);
    expect(publishTopicProblem("a/#")).toMatch(/wildcards/);
  });

  it("refuses topics that are too long or too deep", () => {
    expect(publishTopicProblem("x".repeat(1025))).toMatch(/longer/);
    expect(publishTopicProblem(Array(33).fill("a").join("/"))).toMatch(/levels/);
  });
});

describe("filterProblem", () => {
  it("accepts well-placed wildcards", () => {
    for (const f of ["#", "+", "a/+/c", "a/#", "+/+", "inbox"]) expect(filterProblem(f)).toBeUndefined();
  });

  it("refuses misplaced # and partial-level +", () => {
    expect(filterProblem("a/#/c")).toMatch(/#/);
    expect(filterProblem("a#")).toMatch(/#/);
    expect(filterProblem("a/b+")).toMatch(/\+/);
    expect(filterProblem("+a")).toMatch(/\+/);
    expect(filterProblem("$SYS/#")).toMatch(/reserved/);
    expect(filterProblem("")).toMatch(/empty/);
  });
});

describe("mounting", () => {
  it("prefixes the mountpoint and strips it again", () => {
    const m = mountTopic("t1/d1/", "inbox");
    expect(m).toBe("t1/d1/inbox");
    expect(unmountTopic("t1/d1/", m)).toBe("inbox");
  });

  it("gives undefined for topics outside the mountpoint", () => {
    expect(unmountTopic("t1/d1/", "t1/d2/inbox")).toBeUndefined();
    expect(unmountTopic("t1/d1/", "t1/d1/")).toBeUndefined();
    expect(unmountTopic("", "anything")).toBeUndefined();
  });
});
