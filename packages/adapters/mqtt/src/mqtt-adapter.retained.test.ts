import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MqttClient } from "mqtt";
import { DEVICES, nextMessage, startHarness, type Harness } from "./test-support.js";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.stop());

/** The next message with its retain flag and QoS. */
const nextPacket = (client: MqttClient) =>
  new Promise<{ topic: string; payload: string; retain: boolean; qos: number }>((resolve) =>
    client.once("message", (topic, payload, p) =>
      resolve({ topic, payload: payload.toString(), retain: p.retain, qos: p.qos }),
    ),
  );
const state = (payload: string, qos = 1) => ({ topic: "cfg/led", payload: Buffer.from(payload), qos });

describe("MQTT adapter: retained messages", () => {
  it("sends the retained messages the device was admitted with at each matching SUBSCRIBE, RETAIN=1", async () => {
    h.registry.updateRetained(DEVICES.a.deviceIntId, [state("on")]);
    const a = await h.connect(DEVICES.a);
    const first = nextPacket(a);
    await a.subscribeAsync("cfg/+", { qos: 1 });
    expect(await first).toEqual({ topic: "cfg/led", payload: "on", retain: true, qos: 1 });
    await a.unsubscribeAsync("cfg/+");
    const again = nextPacket(a);
    await a.subscribeAsync("cfg/led", { qos: 0 });
    // At the subscription's QoS when that is lower (MQTT 3.1.1 §3.8.4: the minimum of the two).
    expect(await again).toEqual({ topic: "cfg/led", payload: "on", retain: true, qos: 0 });
  });

  it("applies a RetainedUpdate to a connected device's later SUBSCRIBEs, and one without the topic clears it", async () => {
    const a = await h.connect(DEVICES.a);
    h.registry.updateRetained(DEVICES.a.deviceIntId, [state("v2")]);
    const got = nextPacket(a);
    await a.subscribeAsync("cfg/led", { qos: 1 });
    expect((await got).payload).toBe("v2");
    h.registry.updateRetained(DEVICES.a.deviceIntId, []);
    await a.unsubscribeAsync("cfg/led");
    await a.subscribeAsync("cfg/led", { qos: 1 });
    // Nothing retained comes at that SUBSCRIBE: the first message is this command.
    const fresh = nextMessage(a);
    await h.registry.pushDownlink({
      deviceIntId: DEVICES.a.deviceIntId,
      topic: "cfg/led",
      payload: Buffer.from("cmd"),
    });
    expect(await fresh).toEqual({ topic: "cfg/led", payload: "cmd" });
  });

  it("keeps a device's retained uplink once the registry stored it, for its next SUBSCRIBE; another device never sees it", async () => {
    const a = await h.connect(DEVICES.a);
    await a.publishAsync("state/temp", "21.5", { qos: 1, retain: true });
    const got = nextPacket(a);
    await a.subscribeAsync("state/#", { qos: 1 });
    expect(await got).toEqual({ topic: "state/temp", payload: "21.5", retain: true, qos: 1 });
    const b = await h.connect(DEVICES.b);
    await b.subscribeAsync("state/#", { qos: 1 });
    const fresh = nextMessage(b);
    await b.publishAsync("state/temp", "b's own", { qos: 1 });
    expect(await fresh).toEqual({ topic: "state/temp", payload: "b's own" });
  });

  it("sends them at an MQTT 5.0 SUBSCRIBE with Retain Handling 1 only when the subscription is new", async () => {
    h.registry.updateRetained(DEVICES.a.deviceIntId, [state("on")]);
    const a = await h.connect(DEVICES.a, { protocolVersion: 5 });
    const first = nextPacket(a);
    await a.subscribeAsync("cfg/led", { qos: 1, rh: 1 });
    expect(await first).toMatchObject({ payload: "on", retain: true });
    await a.subscribeAsync("cfg/led", { qos: 1, rh: 1 });
    const fresh = nextPacket(a);
    await a.publishAsync("cfg/led", "mine", { qos: 1 });
    expect(await fresh).toEqual({ topic: "cfg/led", payload: "mine", retain: false, qos: 1 });
  });

  it("sends none at an MQTT 5.0 SUBSCRIBE with Retain Handling 2", async () => {
    h.registry.updateRetained(DEVICES.a.deviceIntId, [state("on")]);
    const a = await h.connect(DEVICES.a, { protocolVersion: 5 });
    await a.subscribeAsync("cfg/led", { qos: 1, rh: 2 });
    const fresh = nextPacket(a);
    await a.publishAsync("cfg/led", "mine", { qos: 1 });
    expect(await fresh).toEqual({ topic: "cfg/led", payload: "mine", retain: false, qos: 1 });
  });
});
