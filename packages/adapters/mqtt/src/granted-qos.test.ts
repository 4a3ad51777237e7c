import { describe, expect, it } from "vitest";
import { highestGrantedQos } from "./granted-qos.js";

describe("highestGrantedQos", () => {
  it("answers the highest QoS granted to a filter matching the topic, -1 when none does, leaving out the filters asked", () => {
    const granted = new Map([
      ["m/inbox", 0],
      ["m/+", 1],
      ["m/other", 2],
    ]);
    expect(highestGrantedQos(granted, "m/inbox")).toBe(1);
    expect(highestGrantedQos(granted, "m/inbox", new Set(["m/+"]))).toBe(0);
    expect(highestGrantedQos(granted, "m/other")).toBe(2);
    expect(highestGrantedQos(granted, "m/gone/deeper")).toBe(-1);
    expect(highestGrantedQos(granted, "x/inbox")).toBe(-1);
  });
});
