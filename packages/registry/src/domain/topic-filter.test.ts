import { describe, expect, it } from "vitest";
import { MAX_TOPIC_FILTER_BYTES, topicFilterProblem } from "./topic-filter.js";

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
