import { describe, expect, it } from "vitest";
import { filterCovers, filtersOverlap, isAllowed, topicMatches } from "./policy.js";
import type { PolicyAccess, TopicPolicy } from "./registry-client.js";

const rule = (topic: string, access: PolicyAccess, allow: boolean): TopicPolicy => ({ id: 1, topic, access, allow });

describe("topicMatches", () => {
  it("matches + against exactly one level and # against the rest", () => {
    expect(topicMatches("a/+/c", "a/b/c")).toBe(true);
    expect(topicMatches("a/+/c", "a/b/x/c")).toBe(false);
    expect(topicMatches("a/#", "a/b/c")).toBe(true);
    expect(topicMatches("#", "anything/at/all")).toBe(true);
  });

  it("lets a/# match its parent a, as MQTT says", () => {
    expect(topicMatches("a/#", "a")).toBe(true);
  });

  it("does not match longer or shorter topics without wildcards", () => {
    expect(topicMatches("a/b", "a/b/c")).toBe(false);
    expect(topicMatches("a/b/c", "a/b")).toBe(false);
    expect(topicMatches("+", "a/b")).toBe(false);
  });

  it("matches empty levels with +", () => {
    expect(topicMatches("+/x", "/x")).toBe(true);
  });
});

describe("filtersOverlap and filterCovers", () => {
  it("finds overlap between wildcard filters", () => {
    expect(filtersOverlap("#", "a/b")).toBe(true);
    expect(filtersOverlap("a/+", "+/b")).toBe(true);
    expect(filtersOverlap("a/+", "b/+")).toBe(false);
    expect(filtersOverlap("a", "a/#")).toBe(true);
  });

  it("covers only when every topic of the specific filter matches the general one", () => {
    expect(filterCovers("a/#", "a/+/c")).toBe(true);
    expect(filterCovers("a/+", "a/+")).toBe(true);
    expect(filterCovers("a/b", "a/+")).toBe(false);
    expect(filterCovers("a/+", "a/#")).toBe(false);
  });
});

describe("isAllowed", () => {
  it("applies the default when nothing matches", () => {
    expect(isAllowed([], "publish", "data", true)).toBe(true);
    expect(isAllowed([], "publish", "data", false)).toBe(false);
    expect(isAllowed([rule("other", 3, false)], "publish", "data", true)).toBe(true);
  });

  it("lets a matching deny win over a matching allow", () => {
    const policies = [rule("data/#", 3, true), rule("data/secret", 1, false)];
    expect(isAllowed(policies, "publish", "data/secret", true)).toBe(false);
    expect(isAllowed(policies, "publish", "data/open", false)).toBe(true);
  });

  it("checks only the rules whose access includes the action", () => {
    const policies = [rule("cmd", 1, false)];
    expect(isAllowed(policies, "publish", "cmd", true)).toBe(false);
    expect(isAllowed(policies, "subscribe", "cmd", true)).toBe(true);
    expect(isAllowed([rule("cmd", 2, true)], "publish", "cmd", false)).toBe(false);
  });

  it("refuses a subscription that could receive a denied topic", () => {
    expect(isAllowed([rule("secret", 2, false)], "subscribe", "#", true)).toBe(false);
    expect(isAllowed([rule("secret", 2, false)], "subscribe", "public/#", true)).toBe(true);
  });

  it("allows a subscription under default deny only when an allow covers all of it", () => {
    const policies = [rule("sensors/+", 2, true)];
    expect(isAllowed(policies, "subscribe", "sensors/+", false)).toBe(true);
    expect(isAllowed(policies, "subscribe", "sensors/#", false)).toBe(false);
  });
});
