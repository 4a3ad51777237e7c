import { describe, expect, it } from "vitest";
import { toAedesSubscription, toStoredSubscription } from "./persistent-session.js";

describe("persistent session subscriptions", () => {
  it("keeps a subscription's QoS and MQTT 5.0 options from aedes to the store and back", () => {
    const stored = { topic: "cmd/+", qos: 2, noLocal: true, retainAsPublished: true, retainHandling: 1 };
    const restored = toAedesSubscription({ ...stored, subscriptionIdentifier: 12 });
    expect(restored).toEqual({ topic: "cmd/+", qos: 2, nl: true, rap: true, rh: 1, subscriptionIdentifier: 12 });
    // aedes mounts the filter when it restores it; the store keeps the relative one.
    const granted = { ...restored, topic: "t1/d1/cmd/+" };
    expect(toStoredSubscription(granted, "cmd/+")).toEqual({ ...stored, subscriptionIdentifier: 12 });
  });

  it("leaves out options that are unset, and caps a stored QoS aedes could not take", () => {
    expect(toAedesSubscription({ topic: "inbox", qos: 1 })).toEqual({ topic: "inbox", qos: 1 });
    expect(toAedesSubscription({ topic: "inbox", qos: 7 }).qos).toBe(2);
    expect(toStoredSubscription({ topic: "m/inbox", qos: 0, nl: false, rap: false, rh: 0 }, "inbox")).toEqual({
      topic: "inbox",
      qos: 0,
    });
  });
});
