import { describe, expect, it } from "vitest";
import type { Aedes, PublishPacket } from "aedes";
import { SubscribedFilters, skipUnmatchedFanOut } from "./fan-out-filter.js";

const packet = (topic: string, retain = false) => ({ cmd: "publish", topic, payload: "x", qos: 1, dup: false, retain });

/** A stand-in for the broker's two methods, recording what reached aedes' own publish. */
function fakeBroker() {
  const published: string[] = [];
  const broker = {
    subscribe: (_topic: string, _func: unknown, done: () => void) => done(),
    publish: (p: PublishPacket, client: unknown, done?: (err?: Error | null) => void) => {
      published.push(p.topic);
      (typeof client === "function" ? (client as typeof done)! : done!)(null);
    },
  };
  return { broker: broker as unknown as Aedes, published };
}

const publishThrough = (broker: Aedes, topic: string, retain = false) =>
  new Promise<void>((resolve) =>
    (broker.publish as unknown as (p: unknown, c: unknown, d: () => void) => void)(packet(topic, retain), {}, resolve),
  );

describe("SubscribedFilters", () => {
  it("tells a topic no filter of its device can match from one a filter may match", () => {
    const filters = new SubscribedFilters();
    expect(filters.mayMatch("d/1/up/a")).toBe(false);
    filters.add("d/1/cmd/#");
    filters.add("d/2/#");
    expect(filters.mayMatch("d/1/up/a")).toBe(false);
    expect(filters.mayMatch("d/1/cmd/x")).toBe(true);
    expect(filters.mayMatch("d/2/up/a")).toBe(true);
    expect(filters.mayMatch("d/3/up/a")).toBe(false);
  });

  it("lets every topic match once a filter outside one device's mountpoint was added, and any topic of another shape", () => {
    const filters = new SubscribedFilters();
    expect(filters.mayMatch("$dropped/d/1/up")).toBe(true);
    filters.add("d/+/up");
    expect(filters.mayMatch("d/1/x")).toBe(true);
  });
});

describe("skipUnmatchedFanOut", () => {
  it("ends a client's publish no subscription matches before aedes routes it, and routes the others", async () => {
    const { broker, published } = fakeBroker();
    skipUnmatchedFanOut(broker);
    await publishThrough(broker, "d/1/up/a");
    expect(published).toEqual([]);
    broker.subscribe(
      "d/1/up/#",
      () => undefined,
      () => undefined,
    );
    await publishThrough(broker, "d/1/up/a");
    await publishThrough(broker, "d/1/cmd/x");
    expect(published).toEqual(["d/1/up/a"]);
  });

  it("routes a retained publish and one without a client (the broker's own) however nobody subscribes", async () => {
    const { broker, published } = fakeBroker();
    skipUnmatchedFanOut(broker);
    await publishThrough(broker, "d/1/up/a", true);
    await new Promise<void>((resolve) => broker.publish(packet("d/1/up/b") as PublishPacket, () => resolve()));
    expect(published).toEqual(["d/1/up/a", "d/1/up/b"]);
  });
});
