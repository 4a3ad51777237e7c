import { EventEmitter } from "node:events";
import type { Client } from "aedes";
import { describe, expect, it } from "vitest";
import { grantedQosOf } from "./aedes-internals.js";

describe("aedes internals", () => {
  it("answers the highest QoS granted to a filter matching the topic, -1 when none does, leaving out the filters asked", () => {
    const client = {
      _parser: new EventEmitter(),
      _nextId: 1,
      subscriptions: { "m/inbox": { qos: 0 }, "m/+": { qos: 1 }, "m/other": { qos: 2 }, "m/gone": undefined },
    } as unknown as Client;
    expect(grantedQosOf(client, "m/inbox")).toBe(1);
    expect(grantedQosOf(client, "m/inbox", new Set(["m/+"]))).toBe(0);
    expect(grantedQosOf(client, "m/other")).toBe(2);
    expect(grantedQosOf(client, "m/gone/deeper")).toBe(-1);
    expect(grantedQosOf(client, "x/inbox")).toBe(-1);
  });
});
