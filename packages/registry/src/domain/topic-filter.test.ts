import { describe, expect, it } from "vitest";
import { MAX_TOPIC_FILTER_BYTES, topicFilterProblem, topicMatches } from "./topic-filter.js";

describe("topicFilterProblem", () => {
  it("accepts plain topics and wildcards that fill whole levels, # only last", () => {
    for (const ok of [
      "inbox",
      "a/b/c",
      "+",
      "#",
      "a/+/c",
      "a/#",
      "+/+/#",
      "/leading/slash",
      "a//b",
      "température/°C",
      "x".repeat(MAX_TOPIC_FILTER_BYTES),
    ]) {
      expect(topicFilterProblem(ok), ok).toBeUndefined();
    }
  });

  it("names what is wrong with a bad filter", () => {
    expect(topicFilterProblem("")).toBe("required");
    expect(topicFilterProblem("a+/b")).toMatch(/\+/);
    expect(topicFilterProblem("a/b+")).toMatch(/\+/);
    expect(topicFilterProblem("a/#/b")).toMatch(/#/);
    expect(topicFilterProblem("a/b#")).toMatch(/#/);
    expect(topicFilterProblem("$SYS/#")).toMatch(/\$/);
    expect(topicFilterProblem("a\u0000b")).toMatch(/NUL/);
    expect(topicFilterProblem("x".repeat(MAX_TOPIC_FILTER_BYTES + 1))).toMatch(/1024 bytes/);
    expect(topicFilterProblem("é".repeat(513))).toMatch(/1024 bytes/);
  });
});

describe("topicMatches", () => {
  it("matches a plain filter only to the identical topic", () => {
    expect(topicMatches("a/b", "a/b")).toBe(true);
    expect(topicMatches("a/b", "a/c")).toBe(false);
    expect(topicMatches("a/b", "a/b/c")).toBe(false);
    expect(topicMatches("a/b", "a")).toBe(false);
    expect(topicMatches("a/b", "A/b")).toBe(false);
  });

  it("lets + fill exactly one level, even an empty one", () => {
    expect(topicMatches("a/+/c", "a/b/c")).toBe(true);
    expect(topicMatches("a/+/c", "a//c")).toBe(true);
    expect(topicMatches("a/+", "a/b/c")).toBe(false);
    expect(topicMatches("a/+", "a")).toBe(false);
    expect(topicMatches("+/+", "x/y")).toBe(true);
  });

  it("lets # match the rest of the levels, including the parent level itself", () => {
    expect(topicMatches("a/#", "a/b/c/d")).toBe(true);
    expect(topicMatches("a/#", "a/b")).toBe(true);
    expect(topicMatches("a/#", "a")).toBe(true);
    expect(topicMatches("a/#", "b/a")).toBe(false);
    expect(topicMatches("#", "anything/at/all")).toBe(true);
    expect(topicMatches("a/+/#", "a/b")).toBe(true);
    expect(topicMatches("a/+/#", "a")).toBe(false);
  });

  it("keeps topics starting with $ away from a leading wildcard but not from a literal level", () => {
    expect(topicMatches("#", "$SYS/x")).toBe(false);
    expect(topicMatches("+/x", "$SYS/x")).toBe(false);
    expect(topicMatches("$SYS/#", "$SYS/x")).toBe(true);
  });
});
