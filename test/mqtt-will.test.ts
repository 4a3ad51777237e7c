/**
 * Wills end to end, against the MQTT adapter as a process: a device's will is an uplink of the device (its namespace
 * is private, so nobody else subscribes to it), stored under the will's topic when the connection ends without a
 * normal DISCONNECT (MQTT 3.1.1 §3.1.2.5, MQTT 5.0 §3.1.2.5 and §3.14.2.1's 0x04).
 */
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

let t: TestFleet;
let productID: string;

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["mqtt-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "wills", cloudProtocol: 1 })).body.productID;
}, 90_000);
afterAll(async () => {
  await t?.close();
});

/** Connects `d` over MQTT 3.1.1 or 5.0 with `options` (its will), never reconnecting by itself. */
const connect = (d: TestDevice, options: IClientOptions): Promise<MqttClient> =>
  mqtt.connectAsync(t.mqttUrl, {
    clientId: d.deviceID,
    username: d.deviceUsername,
    password: d.token,
    reconnectPeriod: 0,
    ...options,
  });

/** The device's stored uplinks as topic and payload, oldest first. */
async function uplinks(d: TestDevice): Promise<{ topic: string; payload: string }[]> {
  const events = (await t.api("GET", `/devices/${d.id}/events`)).body;
  return (events.items as { topic: string; payload: string; id: number }[])
    .sort((a, b) => a.id - b.id)
    .map(({ topic, payload }) => ({ topic, payload }));
}

/** Drops the connection as a device losing power does: no DISCONNECT. */
async function drop(client: MqttClient): Promise<void> {
  const closed = new Promise<void>((resolve) => client.once("close", () => resolve()));
  client.stream.destroy();
  await closed;
}

/** A QoS 1 marker from a new connection: once acknowledged, it is stored after anything the device sent before. */
async function marker(d: TestDevice, protocolVersion: 4 | 5): Promise<void> {
  const c = await connect(d, { protocolVersion });
  await c.publishAsync("marker", "after", { qos: 1 });
  await c.endAsync();
}

const will = (payload: string, properties?: object) =>
  ({
    topic: "status",
    payload: Buffer.from(payload),
    qos: 1,
    retain: false,
    ...(properties ? { properties } : {}),
  }) as const;

describe("a device's will", () => {
  it("of an MQTT 3.1.1 device is stored when its connection drops, and not after a DISCONNECT", async () => {
    const d = await t.newDevice(productID, "will-311");
    await drop(await connect(d, { protocolVersion: 4, will: will("lost") }));
    await vi.waitFor(async () => expect(await uplinks(d)).toEqual([{ topic: "status", payload: "lost" }]), 10_000);

    await (await connect(d, { protocolVersion: 4, will: will("not sent") })).endAsync();
    await marker(d, 4);
    expect(await uplinks(d)).toEqual([
      { topic: "status", payload: "lost" },
      { topic: "marker", payload: "after" },
    ]);
  });

  it("of an MQTT 5.0 device is stored when its connection drops or after DISCONNECT 0x04, not after DISCONNECT 0x00", async () => {
    const d = await t.newDevice(productID, "will-v5");
    await drop(await connect(d, { protocolVersion: 5, will: will("lost") }));
    await vi.waitFor(async () => expect(await uplinks(d)).toEqual([{ topic: "status", payload: "lost" }]), 10_000);

    await (await connect(d, { protocolVersion: 5, will: will("asked for") })).endAsync(false, { reasonCode: 0x04 });
    const both = [
      { topic: "status", payload: "lost" },
      { topic: "status", payload: "asked for" },
    ];
    await vi.waitFor(async () => expect(await uplinks(d)).toEqual(both), 10_000);

    await (await connect(d, { protocolVersion: 5, will: will("not sent") })).endAsync(false, { reasonCode: 0x00 });
    await marker(d, 5);
    expect(await uplinks(d)).toEqual([...both, { topic: "marker", payload: "after" }]);
  });
});
