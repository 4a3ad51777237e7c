/**
 * Retained messages end to end (docs/devices/mqtt.md, "Retained messages"): a retained command is the device's
 * desired state, sent with RETAIN=1 at each SUBSCRIBE until cleared; a device's retained uplink is its topic's last
 * value, shown by REST and sent to the device when it subscribes to its own topic, if its policies allow. Peers:
 * mosquitto_sub (-V mqttv311 and -V mqttv5), mosquitto_pub, and Debian's python3-paho-mqtt (MQTTv5, for Retain
 * Handling), against the MQTT adapter as a process.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";
import { run } from "./mqtt5-peers.js";

let t: TestFleet;
let productID: string;

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["mqtt-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "retained", cloudProtocol: 1 })).body.productID;
}, 90_000);
afterAll(() => t?.close());

const port = () => String(new URL(t.mqttUrl).port);
const mosquitto = (d: TestDevice, version: "mqttv5" | "mqttv311") => [
  "-V",
  version,
  "-h",
  "127.0.0.1",
  "-p",
  port(),
  "-i",
  d.deviceID,
  "-u",
  d.deviceUsername,
  "-P",
  d.token,
];

/** The first message mosquitto_sub gets on `topic`, as "<retain flag> <topic> <payload>". */
const firstMessage = async (d: TestDevice, version: "mqttv5" | "mqttv311", topic: string) => {
  const r = await run("mosquitto_sub", [...mosquitto(d, version), "-q", "1", "-t", topic, "-C", "1", "-F", "%r %t %p"]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
};

/** A paho MQTTv5 subscriber reporting its SUBACK and messages (with their retain flag) as JSON lines. */
const PAHO_SUBSCRIBER = `
import json, sys
import paho.mqtt.client as mqtt
from paho.mqtt.subscribeoptions import SubscribeOptions
o = json.loads(sys.argv[1])
c = mqtt.Client(client_id=o["clientId"], protocol=mqtt.MQTTv5)
c.username_pw_set(o["username"], o["password"])
seen = []
def out(**kw):
    print(json.dumps(kw), flush=True)
def on_connect(c, u, flags, rc, props):
    c.subscribe([(f, SubscribeOptions(qos=1, retainHandling=o["retainHandling"])) for f in o["topics"]])
def on_subscribe(c, u, mid, rcs, props):
    out(event="suback", rcs=[r.value for r in rcs])
def on_message(c, u, m):
    out(event="message", topic=m.topic, payload=m.payload.decode(), retain=bool(m.retain), qos=m.qos)
    seen.append(m)
    if len(seen) >= o["count"]:
        c.disconnect()
c.on_connect, c.on_subscribe, c.on_message = on_connect, on_subscribe, on_message
c.connect("127.0.0.1", o["port"], keepalive=30)
c.loop_forever()
`;

type Message = { event: "message"; topic: string; payload: string; retain: boolean; qos: number };

/** Starts a paho subscriber to `topics`; `subscribed` resolves at its SUBACK, `messages` with its first `count`. */
function pahoSubscriber(d: TestDevice, topics: string | string[], retainHandling: 0 | 1 | 2, count = 1) {
  const options = {
    clientId: d.deviceID,
    username: d.deviceUsername,
    password: d.token,
    port: Number(port()),
    topics: [topics].flat(),
    retainHandling,
    count,
  };
  const child = spawn("/usr/bin/python3", ["-c", PAHO_SUBSCRIBER, JSON.stringify(options)]);
  const timer = setTimeout(() => child.kill(), 20_000);
  let stdout = "";
  let stderr = "";
  let onSuback: (rcs: number[]) => void = () => {};
  const subscribed = new Promise<number[]>((resolve) => (onSuback = resolve));
  child.stdout.on("data", (b: Buffer) => {
    stdout += b.toString();
    const suback = stdout.split("\n").find((l) => l.includes('"suback"'));
    if (suback) onSuback((JSON.parse(suback) as { rcs: number[] }).rcs);
  });
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  const messages = once(child, "exit").then(() => {
    clearTimeout(timer);
    if (stderr) throw new Error(`paho: ${stderr}`);
    const lines = stdout.split("\n").filter(Boolean);
    return lines.map((l) => JSON.parse(l) as { event: string }).filter((e): e is Message => e.event === "message");
  });
  return { subscribed, messages };
}

const publish = (d: TestDevice, payload: string, topic: string, retain = 0) =>
  t.api("POST", "/device_publish", { deviceID: d.deviceID, payload, topic, retain });

describe("retained messages over MQTT", () => {
  it("sends a retained command now, then with RETAIN=1 at every SUBSCRIBE (3.1.1 and 5.0), none after it is cleared", async () => {
    const d = await t.newDevice(productID, "desired");
    // Delivered now, as any command, to the subscribed device (RETAIN=0: MQTT-3.3.1-9, a live subscription).
    const live = pahoSubscriber(d, "cfg/led", 0);
    await live.subscribed;
    expect((await publish(d, "on", "cfg/led", 1)).status).toBe(201);
    expect(await live.messages).toEqual([{ event: "message", topic: "cfg/led", payload: "on", retain: false, qos: 1 }]);

    expect(await firstMessage(d, "mqttv311", "cfg/led")).toBe("1 cfg/led on");
    expect(await firstMessage(d, "mqttv5", "cfg/+")).toBe("1 cfg/led on");
    const again = pahoSubscriber(d, "cfg/#", 0);
    expect(await again.messages).toEqual([{ event: "message", topic: "cfg/led", payload: "on", retain: true, qos: 1 }]);

    // Retain Handling 2: no retained message at this SUBSCRIBE; the first message is a fresh command.
    const none = pahoSubscriber(d, "cfg/led", 2);
    expect(await none.subscribed).toEqual([1]);
    await publish(d, "fresh", "cfg/led");
    expect(await none.messages).toEqual([
      { event: "message", topic: "cfg/led", payload: "fresh", retain: false, qos: 1 },
    ]);

    expect((await t.api("DELETE", `/devices/${d.id}/retained?topic=cfg/led`)).status).toBe(204);
    const cleared = pahoSubscriber(d, "cfg/led", 0);
    await cleared.subscribed;
    await publish(d, "after", "cfg/led");
    expect((await cleared.messages).map((m) => [m.payload, m.retain])).toEqual([["after", false]]);
  }, 60_000);

  it("replaces the desired state with the next retained command", async () => {
    const d = await t.newDevice(productID, "replaced");
    await publish(d, "v1", "cfg", 1);
    await publish(d, "v2", "cfg", 1);
    const r = await t.api("GET", `/devices/${d.id}/retained?direction=command`);
    expect(r.body.items).toMatchObject([{ topic: "cfg", payload: "v2" }]);
    // Both commands wait queued for a subscription; the retained message at SUBSCRIBE is the last one.
    const sub = pahoSubscriber(d, "cfg", 0, 3);
    const messages = await sub.messages;
    expect(messages.filter((m) => m.retain).map((m) => m.payload)).toEqual(["v2"]);
    expect(messages.filter((m) => !m.retain).map((m) => m.payload)).toEqual(["v1", "v2"]);
  }, 60_000);

  it("keeps a device's retained uplink as its topic's last value, shown by REST and sent when it subscribes to it", async () => {
    const d = await t.newDevice(productID, "reported");
    for (const value of ["20.0", "21.5"]) {
      const pub = await run("mosquitto_pub", [
        ...mosquitto(d, "mqttv5"),
        "-q",
        "1",
        "-r",
        "-t",
        "state/temp",
        "-m",
        value,
      ]);
      expect(pub.code, pub.stderr).toBe(0);
    }
    const r = await t.api("GET", `/devices/${d.id}/retained?direction=uplink`);
    expect(r.body.items).toMatchObject([{ direction: "uplink", topic: "state/temp", payload: "21.5", qos: "1" }]);
    // The uplinks themselves are stored as usual.
    const events = (await t.api("GET", `/devices/${d.id}/events`)).body.items as { payload: string }[];
    expect(events.map((e) => e.payload).sort()).toEqual(["20.0", "21.5"]);
    expect(await firstMessage(d, "mqttv311", "state/temp")).toBe("1 state/temp 21.5");

    // An empty retained uplink clears it (MQTT-3.3.1-10).
    const clear = await run("mosquitto_pub", [...mosquitto(d, "mqttv5"), "-q", "1", "-r", "-n", "-t", "state/temp"]);
    expect(clear.code, clear.stderr).toBe(0);
    expect((await t.api("GET", `/devices/${d.id}/retained`)).body.meta.count).toBe(0);
  }, 60_000);

  it("sends no retained uplink on a topic the device's policies deny it subscribing to (SUBACK refuses it)", async () => {
    const d = await t.newDevice(productID, "denied");
    const pub = await run("mosquitto_pub", [...mosquitto(d, "mqttv5"), "-q", "1", "-r", "-t", "state/temp", "-m", "9"]);
    expect(pub.code, pub.stderr).toBe(0);
    const policy = await t.api("POST", "/policies", { name: "no-state", topic: "state/#", access: 2, allow: 0 });
    expect(policy.status).toBe(201);
    expect((await t.api("POST", `/devices/${d.id}/policies`, { ids: [policy.body.id] })).status).toBeLessThan(300);
    // The SUBSCRIBE to state/temp is refused (0x87 not authorized), so nothing retained comes; inbox is granted.
    const sub = pahoSubscriber(d, ["state/temp", "inbox"], 0);
    expect(await sub.subscribed).toEqual([135, 1]);
    await publish(d, "cmd", "inbox");
    expect((await sub.messages).map((m) => [m.topic, m.retain])).toEqual([["inbox", false]]);
  }, 60_000);
});
