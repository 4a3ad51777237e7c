import { quietFor } from "@iot/config/testing";
import type { IClientOptions, MqttClient } from "mqtt";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEVICES, closed, startHarness, type Harness } from "./test-support.js";

let h: Harness;
afterEach(async () => {
  await h.stop();
});

/** An MQTT 5.0 connection of device a whose will (topic "status") has `willDelayInterval` seconds of delay. */
const connectWithWill = (payload: string, willDelayInterval: number | undefined, extra: IClientOptions = {}) =>
  h.connect(DEVICES.a, {
    protocolVersion: 5,
    will: {
      topic: "status",
      payload: Buffer.from(payload),
      qos: 1,
      retain: false,
      ...(willDelayInterval === undefined ? {} : { properties: { willDelayInterval } }),
    },
    ...extra,
  });

/** Drops the connection as a device losing power does (no DISCONNECT); answers when that happened, ms. */
async function drop(client: MqttClient): Promise<number> {
  const at = Date.now();
  const gone = closed(client);
  client.stream.destroy();
  await gone;
  return at;
}

const wills = () => h.registry.uplinks.filter((u) => u.topic === "status");
const sessionClosed = (n: number) => h.registry.events.filter((e) => e.type === "closed").length >= n;

describe("MQTT adapter: MQTT 5.0 will delay", () => {
  it("stores a delayed will as the device's uplink once its delay has passed, with the device's identity", async () => {
    h = await startHarness();
    const droppedAt = await drop(
      await connectWithWill("gone", 1, { clean: false, properties: { sessionExpiryInterval: 60 } }),
    );
    await vi.waitFor(() => expect(wills()).toHaveLength(1), 5000);
    const [will] = wills();
    expect(will!.receivedAtMs - droppedAt).toBeGreaterThanOrEqual(1000);
    expect(will).toMatchObject({ tenantId: "t1", deviceIntId: 1, qos: 1 });
    expect(Buffer.from(will!.payload).toString()).toBe("gone");
    const opened = h.registry.events.find((e) => e.type === "opened");
    expect(will!.sessionId).toBe(opened?.session.sessionId);
  });

  it("sends no will when the device reconnects before the delay without Clean Start", async () => {
    h = await startHarness();
    const session = { clean: false, properties: { sessionExpiryInterval: 60 } };
    await drop(await connectWithWill("gone", 1, session));
    const again = await h.connect(DEVICES.a, { protocolVersion: 5, ...session });
    // Absence needs the delay to pass: wait it out (and some), then the device's own marker comes after.
    await quietFor(1500, "a will not dropped would be published once its 1 s delay passed");
    await again.publishAsync("marker", "after", { qos: 1 });
    expect(wills()).toEqual([]);
    expect(h.registry.uplinks.map((u) => u.topic)).toEqual(["marker"]);
  });

  it("sends the will at once when the device reconnects with Clean Start (its old session ends)", async () => {
    h = await startHarness();
    await drop(await connectWithWill("gone", 3600, { properties: { sessionExpiryInterval: 7200 } }));
    await vi.waitFor(() => expect(sessionClosed(1)).toBe(true));
    expect(wills()).toEqual([]);
    await h.connect(DEVICES.a, { protocolVersion: 5, clean: true });
    await vi.waitFor(() => expect(wills()).toHaveLength(1), 5000);
  });

  it("sends the will at once when its delay is 0, or when the session ends before the delay", async () => {
    h = await startHarness();
    await drop(await connectWithWill("no delay", 0));
    await vi.waitFor(() => expect(wills()).toHaveLength(1), 5000);
    // No Session Expiry Interval: the session ends with the connection, before the hour's delay.
    await drop(await connectWithWill("session ended", 3600));
    await vi.waitFor(() => expect(wills()).toHaveLength(2), 5000);
    expect(wills().map((u) => Buffer.from(u.payload).toString())).toEqual(["no delay", "session ended"]);
  });

  it("sends a delayed will after DISCONNECT 0x04 too, and none after a normal DISCONNECT", async () => {
    h = await startHarness();
    const session = { properties: { sessionExpiryInterval: 60 } };
    await (await connectWithWill("not sent", 1, session)).endAsync(false, { reasonCode: 0x00 });
    const at = Date.now();
    await (await connectWithWill("asked for", 1, session)).endAsync(false, { reasonCode: 0x04 });
    await vi.waitFor(() => expect(wills()).toHaveLength(1), 5000);
    expect(Buffer.from(wills()[0]!.payload).toString()).toBe("asked for");
    expect(wills()[0]!.receivedAtMs - at).toBeGreaterThanOrEqual(1000);
  });

  it("publishes the wills it still holds when the adapter shuts down", async () => {
    h = await startHarness();
    await drop(await connectWithWill("gone", 3600, { properties: { sessionExpiryInterval: 7200 } }));
    await vi.waitFor(() => expect(sessionClosed(1)).toBe(true));
    expect(wills()).toEqual([]);
    await h.adapter.close();
    await vi.waitFor(() => expect(wills()).toHaveLength(1), 5000);
  });
});
