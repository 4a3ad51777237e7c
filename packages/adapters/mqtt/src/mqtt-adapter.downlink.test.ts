import type { DownlinkOutcome } from "@iot/adapter-core";
import { quietFor } from "@iot/config/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEVICES, closed, nextMessage, startHarness, type Harness } from "./test-support.js";

let h: Harness;
afterEach(async () => {
  await h.stop();
});

const payload = (s: string) => new Uint8Array(Buffer.from(s));

// mqtt.js sends a QoS 1 PUBACK when its handleMessage calls back, so the tests
// hold that callback to control when (and whether) the PUBACK goes out.
describe("MQTT adapter: downlinks", () => {
  it("delivers a command to the device's inbox and reports DELIVERED only after its PUBACK", async () => {
    h = await startHarness();
    const events: string[] = [];
    let sendPuback: (() => void) | undefined;
    const client = await h.connect(DEVICES.a);
    client.handleMessage = (packet, done) => {
      events.push(`received ${packet.topic} ${packet.payload.toString()}`);
      sendPuback = () => done();
    };
    await client.subscribeAsync("inbox", { qos: 1 });
    let result: DownlinkOutcome | undefined;
    const pending = h.registry
      .pushDownlink({ id: 5, deviceIntId: 1, payload: payload("reboot"), qos: 1 })
      .then((r) => (result = r));
    await vi.waitFor(() => expect(sendPuback).toBeDefined());
    await quietFor(100, "an outcome that did not wait for the PUBACK would come within this");
    expect(result).toBeUndefined();
    events.push("puback");
    sendPuback!();
    await pending;
    expect(result).toEqual({ status: "DELIVERED" });
    expect(events).toEqual(["received inbox reboot", "puback"]);
  });

  it("reports SENT for a QoS 0 command once written", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.a);
    await client.subscribeAsync("cmd/+", { qos: 0 });
    const got = nextMessage(client);
    const result = await h.registry.pushDownlink({
      deviceIntId: 1,
      topic: "cmd/light",
      payload: payload("on"),
      qos: 0,
    });
    expect(result).toEqual({ status: "SENT" });
    expect(await got).toEqual({ topic: "cmd/light", payload: "on" });
  });

  it("sends at the subscription's QoS 0 and reports SENT when the device subscribed with QoS 0", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.a);
    await client.subscribeAsync("inbox", { qos: 0 });
    const got = nextMessage(client);
    await expect(h.registry.pushDownlink({ deviceIntId: 1, payload: payload("x"), qos: 1 })).resolves.toEqual({
      status: "SENT",
    });
    await got;
  });

  it("fails a command for a device that is not connected here", async () => {
    h = await startHarness();
    const result = await h.registry.pushDownlink({ deviceIntId: 1, payload: payload("x") });
    expect(result).toEqual({ status: "FAILED", message: "device is not connected to this adapter" });
  });

  it("fails a QoS 1 command when no PUBACK arrives in time", async () => {
    h = await startHarness({ downlinkAckTimeoutMs: 200 });
    const client = await h.connect(DEVICES.a);
    client.handleMessage = () => undefined;
    await client.subscribeAsync("inbox", { qos: 1 });
    const result = await h.registry.pushDownlink({ deviceIntId: 1, payload: payload("x"), qos: 1 });
    expect(result).toEqual({ status: "FAILED", message: "no PUBACK within 200 ms" });
  });

  it("fails a QoS 1 command when the device disconnects before its PUBACK", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.a);
    client.handleMessage = () => {
      client.end(true);
    };
    await client.subscribeAsync("inbox", { qos: 1 });
    const result = await h.registry.pushDownlink({ deviceIntId: 1, payload: payload("x"), qos: 1 });
    await closed(client);
    expect(result).toEqual({ status: "FAILED", message: "device disconnected before its PUBACK" });
  });

  it("delivers only to the addressed device, not to another tenant's device with the same client id", async () => {
    h = await startHarness();
    const target = await h.connect(DEVICES.a);
    const other = await h.connect(DEVICES.otherTenantA);
    await target.subscribeAsync("inbox", { qos: 1 });
    await other.subscribeAsync("#", { qos: 1 });
    const seen: string[] = [];
    other.on("message", (t) => seen.push(t));
    const got = nextMessage(target);
    await expect(h.registry.pushDownlink({ deviceIntId: 1, payload: payload("only a"), qos: 1 })).resolves.toEqual({
      status: "DELIVERED",
    });
    expect(await got).toEqual({ topic: "inbox", payload: "only a" });
    // A leak to the other device would be on its way before this command of its own.
    await h.registry.pushDownlink({ deviceIntId: 3, topic: "own", payload: payload("own"), qos: 1 });
    await vi.waitFor(() => expect(seen).toEqual(["own"]));
  });
});
