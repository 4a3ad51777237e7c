/**
 * MQTT 5.0 will delay end to end, against the MQTT adapter as a process, with MQTT.js and python3-paho-mqtt: a will
 * with a Will Delay Interval is stored as the device's uplink once the delay has passed (MQTT 5.0 §3.1.3.2.2), not
 * when the device reconnected meanwhile (MQTT-3.1.3-9), and at once when the delay is 0.
 */
import { spawn } from "node:child_process";
import { quietFor } from "@iot/config/testing";
import { once } from "node:events";
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

let t: TestFleet;
let productID: string;

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["mqtt-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "delayed wills", cloudProtocol: 1 })).body.productID;
}, 90_000);
afterAll(async () => {
  await t?.close();
});

/** Continues a session (Clean Start 0) that outlives its connection by a minute. */
const SESSION = { clean: false, properties: { sessionExpiryInterval: 60 } } as const;

/** Connects `d` over MQTT 5.0 with a will on "status" delayed `willDelayInterval` seconds (none when undefined). */
const connect = (d: TestDevice, willDelayInterval?: number, options: IClientOptions = {}): Promise<MqttClient> =>
  mqtt.connectAsync(t.mqttUrl, {
    clientId: d.deviceID,
    username: d.deviceUsername,
    password: d.token,
    protocolVersion: 5,
    reconnectPeriod: 0,
    ...(willDelayInterval === undefined
      ? {}
      : {
          will: {
            topic: "status",
            payload: Buffer.from("lost"),
            qos: 1,
            retain: false,
            properties: { willDelayInterval },
          },
        }),
    ...options,
  });

/** The device's stored uplinks' topics, oldest first. */
async function topics(d: TestDevice): Promise<string[]> {
  const events = (await t.api("GET", `/devices/${d.id}/events`)).body;
  return (events.items as { topic: string; id: number }[]).sort((a, b) => a.id - b.id).map((e) => e.topic);
}

/** Drops the connection as a device losing power does: no DISCONNECT. */
async function drop(client: MqttClient): Promise<void> {
  const closed = new Promise<void>((resolve) => client.once("close", () => resolve()));
  client.stream.destroy();
  await closed;
}

/**
 * A paho MQTTv5 device that continues its session (Clean Start 0, a minute's expiry): with `delay`, it has a will on
 * "status" delayed that long; it reports its CONNACK, then idles until killed, or, with `marker`, publishes "marker"
 * at QoS 1 and disconnects normally.
 */
const PAHO_DEVICE = `
import json, sys
import paho.mqtt.client as mqtt
from paho.mqtt.properties import Properties
from paho.mqtt.packettypes import PacketTypes
o = json.loads(sys.argv[1])
c = mqtt.Client(client_id=o["clientId"], protocol=mqtt.MQTTv5)
c.username_pw_set(o["username"], o["password"])
if "delay" in o:
    will = Properties(PacketTypes.WILLMESSAGE)
    will.WillDelayInterval = o["delay"]
    c.will_set("status", "lost", qos=1, properties=will)
session = Properties(PacketTypes.CONNECT)
session.SessionExpiryInterval = 60
def on_connect(c, u, flags, rc, props):
    print(json.dumps({"rc": rc.value}), flush=True)
    if o.get("marker"):
        c.publish("marker", "after", qos=1)
def on_publish(c, u, mid):
    c.disconnect()
c.on_connect, c.on_publish = on_connect, on_publish
c.connect(o["host"], o["port"], keepalive=30, clean_start=False, properties=session)
c.loop_forever()
`;

/** Starts a paho device of `d` (PAHO_DEVICE) and waits for its CONNACK. */
async function pahoDevice(d: TestDevice, options: { delay?: number; marker?: boolean }) {
  const { hostname, port } = new URL(t.mqttUrl);
  const args = { host: hostname, port: Number(port), clientId: d.deviceID, username: d.deviceUsername };
  const child = spawn(
    "/usr/bin/python3",
    ["-c", PAHO_DEVICE, JSON.stringify({ ...args, password: d.token, ...options })],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const exited = once(child, "exit");
  const [line] = (await once(child.stdout, "data")) as [Buffer];
  expect(JSON.parse(line.toString())).toEqual({ rc: 0 });
  return { kill: () => (child.kill("SIGKILL"), exited), exited };
}

describe("an MQTT 5.0 device's delayed will", () => {
  it("is stored once its delay has passed, not at once (MQTT.js)", async () => {
    const d = await t.newDevice(productID, "will-delay-js");
    await drop(await connect(d, 2, SESSION));
    expect(await topics(d)).toEqual([]);
    await vi.waitFor(async () => expect(await topics(d)).toEqual(["status"]), 10_000);
  });

  it("is not stored when the device reconnects within the delay (MQTT.js)", async () => {
    const d = await t.newDevice(productID, "will-delay-back");
    await drop(await connect(d, 2, SESSION));
    const again = await connect(d, undefined, SESSION);
    await quietFor(2500, "a will not dropped would be stored once its 2 s delay passed");
    await again.publishAsync("marker", "after", { qos: 1 });
    await again.endAsync();
    expect(await topics(d)).toEqual(["marker"]);
  });

  it("is stored at once when its delay is 0 (MQTT.js)", async () => {
    const d = await t.newDevice(productID, "will-delay-0");
    await drop(await connect(d, 0, SESSION));
    await vi.waitFor(async () => expect(await topics(d)).toEqual(["status"]), 5_000);
  });

  it("is stored once its delay has passed after the device died (paho-mqtt)", async () => {
    const d = await t.newDevice(productID, "will-delay-paho");
    await (await pahoDevice(d, { delay: 1 })).kill();
    expect(await topics(d)).toEqual([]);
    await vi.waitFor(async () => expect(await topics(d)).toEqual(["status"]), 10_000);
  });

  it("is not stored when the device comes back within the delay, and stored at once with delay 0 (paho-mqtt)", async () => {
    const d = await t.newDevice(productID, "will-delay-paho-back");
    await (await pahoDevice(d, { delay: 2 })).kill();
    const back = await pahoDevice(d, {});
    await quietFor(2500, "a will not dropped would be stored once its 2 s delay passed");
    await (
      await pahoDevice(d, { marker: true })
    ).exited;
    await back.kill(); // no will of its own
    expect(await topics(d)).toEqual(["marker"]);

    await (await pahoDevice(d, { delay: 0 })).kill();
    await vi.waitFor(async () => expect(await topics(d)).toEqual(["marker", "status"]), 5_000);
  });
});
