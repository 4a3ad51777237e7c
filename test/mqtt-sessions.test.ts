/**
 * Persistent MQTT sessions end to end (docs/devices/mqtt.md "Persistent sessions"): the session's state lives in the
 * registry's store, so a device that connects with clean session 0 (3.1.1) or a Session Expiry Interval (5.0) finds
 * it again after disconnects, an adapter restart and on another adapter process: CONNACK session present 1, and the
 * commands issued while it was away delivered in order without a new SUBSCRIBE. The session expires after its
 * interval and a Clean Start drops it. Clients: MQTT.js, Mosquitto's mosquitto_sub and Debian's python3-paho-mqtt.
 */
import { execFile } from "node:child_process";
import { quietFor } from "@iot/config/testing";
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADAPTERS, reachable, startProcess, stopProcess, type FleetProcess } from "../scripts/fleet.js";
import type { TestDevice } from "./helpers.js";
import { startRestartableFleet, type RestartableFleet } from "./restartable-fleet.js";

let f: RestartableFleet;
const clients: MqttClient[] = [];
/** MQTT adapter processes beside the fleet's own, stopped at the end. */
const others: FleetProcess[] = [];

beforeAll(async () => {
  f = await startRestartableFleet();
}, 90_000);
afterAll(async () => {
  for (const c of clients) c.end(true);
  await Promise.all(others.map((p) => stopProcess(p)));
  await f?.close();
});

const mqttUrl = (p = f.adapter) => reachable(p.urls.mqtt!);

/** Another MQTT adapter process attached to the fleet's central node, on a port of its own. */
async function anotherAdapter(): Promise<FleetProcess> {
  const entry = ADAPTERS.find((a) => a.name === "mqtt-adapter")!.entry;
  const registry = `127.0.0.1:${f.settings.IOT_GRPC_PORT}`;
  const p = await startProcess("mqtt-adapter", entry, {
    ...f.settings,
    IOT_REGISTRY_URL: registry,
    IOT_MQTT_PORT: "0",
  });
  others.push(p);
  return p;
}

/** Connects `d` with its token; answers the client, its CONNACK's session present, and the messages it is handed. */
async function connect(d: TestDevice, options: IClientOptions, url = mqttUrl()) {
  const client = mqtt.connect(url, {
    clientId: d.deviceID,
    username: d.deviceUsername,
    password: d.token,
    reconnectPeriod: 0,
    connectTimeout: 5000,
    ...options,
  });
  clients.push(client);
  const messages: string[] = [];
  const packets: { cmd: string; dup?: boolean; messageId?: number }[] = [];
  client.on("message", (_topic, payload) => messages.push(payload.toString()));
  client.on("packetreceive", (p) =>
    packets.push({ cmd: p.cmd, dup: (p as { dup?: boolean }).dup, messageId: (p as { messageId?: number }).messageId }),
  );
  const connack = await new Promise<{ sessionPresent: boolean }>((resolve, reject) => {
    client.once("connect", resolve);
    client.once("error", reject);
  });
  return { client, present: connack.sessionPresent, messages, packets };
}

const end = (c: MqttClient) => new Promise<void>((resolve) => c.end(false, {}, () => resolve()));

/** Sends a command through the API, QoS 1 on the device's default topic (inbox); answers its control log id. */
async function command(d: TestDevice, payload: string, qos = 1): Promise<number> {
  const r = await f.api("POST", "/device_publish", { deviceID: d.deviceID, payload, qos });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.controlLogIntID as number;
}

const statusOf = async (d: TestDevice, controlLogIntID: number) =>
  (await f.api("GET", `/devices/${d.id}/control_logs`)).body.items.find((l: { id: number }) => l.id === controlLogIntID)
    ?.publishStatus;

const offline = (d: TestDevice) =>
  expect.poll(async () => (await f.api("GET", `/devices/${d.id}`)).body.deviceStatus, { timeout: 10_000 }).not.toBe(1);

describe("persistent MQTT sessions in the registry's store", () => {
  it("resumes a clean session 0 session with its subscription after an adapter restart and on a second adapter", async () => {
    const d = await f.newDevice(1, "persist-311");
    const first = await connect(d, { clean: false, protocolVersion: 4 });
    expect(first.present).toBe(false);
    await first.client.subscribeAsync("inbox", { qos: 1 });
    await end(first.client);
    await offline(d);
    await command(d, "one");
    await command(d, "two");
    // The adapter restarts: nothing of the session was in its memory.
    expect(await stopProcess(f.adapter)).toBe(0);
    await f.startAdapter("mqtt-adapter");
    const again = await connect(d, { clean: false, protocolVersion: 4 });
    expect(again.present).toBe(true);
    // No SUBSCRIBE: the restored subscription carries the queued commands, in order.
    await expect.poll(() => again.messages, { timeout: 10_000 }).toEqual(["one", "two"]);
    await end(again.client);
    await offline(d);
    await command(d, "three");
    // A second adapter process (another port) serves the same session.
    const other = await anotherAdapter();
    const moved = await connect(d, { clean: false, protocolVersion: 4 }, mqttUrl(other));
    expect(moved.present).toBe(true);
    await expect.poll(() => moved.messages, { timeout: 10_000 }).toEqual(["three"]);
    await end(moved.client);
  });

  it("drops the session on a Clean Start, and an MQTT 5.0 session after its expiry interval", async () => {
    const d = await f.newDevice(1, "persist-v5");
    const v5 = (clean: boolean, sessionExpiryInterval: number) =>
      connect(d, { clean, protocolVersion: 5, properties: { sessionExpiryInterval } });
    const first = await v5(false, 2);
    expect(first.present).toBe(false);
    await first.client.subscribeAsync("inbox", { qos: 1 });
    await end(first.client);
    const back = await v5(false, 2);
    expect(back.present).toBe(true);
    await end(back.client);
    await quietFor(3_000, "the 2 s session expiry interval passes with the device away");
    const expired = await v5(false, 60);
    expect(expired.present).toBe(false);
    await expired.client.subscribeAsync("inbox", { qos: 1 });
    await end(expired.client);
    const kept = await v5(false, 60);
    expect(kept.present).toBe(true);
    await end(kept.client);
    const cleanStart = await v5(true, 60);
    expect(cleanStart.present).toBe(false);
    await end(cleanStart.client);
    // The Clean Start dropped the subscription; its own session (interval 60) resumes, present, without any: a
    // command finds none to go out on.
    const after = await v5(false, 60);
    expect(after.present).toBe(true);
    await command(d, "unseen");
    await quietFor(500, "a command on a restored subscription would arrive within this");
    expect(after.messages).toEqual([]);
    await end(after.client);
  });

  it("resends an unacknowledged command with its packet identifier on another adapter: QoS 1 DUP 1, QoS 2 PUBREL", async () => {
    const a = f.adapter;
    const b = await anotherAdapter();
    const d = await f.newDevice(1, "persist-unacked");
    const first = await connect(d, { clean: false, protocolVersion: 4 }, mqttUrl(a));
    await first.client.subscribeAsync("inbox", { qos: 2 });
    // The device takes the QoS 1 PUBLISH and drops before its PUBACK (MQTT.js answers once the message is handled).
    first.client.handleMessage = () => first.client.stream.destroy();
    const q1 = await command(d, "q1", 1);
    await offline(d);
    expect(await statusOf(d, q1)).toBe(1);
    const sent = first.packets.find((p) => p.cmd === "publish")!;
    expect(sent.dup).toBe(false);

    const second = await connect(d, { clean: false, protocolVersion: 4 }, mqttUrl(b));
    expect(second.present).toBe(true);
    await expect.poll(() => statusOf(d, q1), { timeout: 10_000 }).toBe(2);
    expect(second.packets.filter((p) => p.cmd === "publish")).toEqual([
      { cmd: "publish", dup: true, messageId: sent.messageId },
    ]);
    expect(second.messages).toEqual(["q1"]);

    // QoS 2: the device answers PUBREC, takes the message at PUBREL and drops before its PUBCOMP.
    second.client.handleMessage = () => second.client.stream.destroy();
    const q2 = await command(d, "q2", 2);
    await offline(d);
    const published = second.packets.filter((p) => p.cmd === "publish").at(-1)!;
    expect(second.packets.map((p) => p.cmd).slice(-2)).toEqual(["publish", "pubrel"]);
    const third = await connect(d, { clean: false, protocolVersion: 4 }, mqttUrl(a));
    expect(third.present).toBe(true);
    await expect.poll(() => statusOf(d, q2), { timeout: 10_000 }).toBe(2);
    expect(third.packets.map((p) => [p.cmd, p.messageId])).toEqual([
      ["connack", undefined],
      ["pubrel", published.messageId],
    ]);
    await end(third.client);
  });

  it("gives mosquitto_sub (-c, 3.1.1) and paho (MQTTv5, clean_start=False) their commands queued while away", async () => {
    const d = await f.newDevice(1, "persist-peers");
    const port = String(new URL(mqttUrl()).port);
    const sub = (count: number) =>
      run("mosquitto_sub", [
        ...["-V", "mqttv311", "-h", "127.0.0.1", "-p", port, "-c", "-i", d.deviceID],
        ...["-u", d.deviceUsername, "-P", d.token, "-q", "1", "-t", "inbox", "-C", String(count), "-W", "10"],
      ]);
    // The first run subscribes and takes one command; the commands sent after it ends wait in the registry.
    const firstRun = sub(1);
    await expect.poll(async () => (await f.api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
    // A command waits in the adapter for the device's SUBSCRIBE, so it may go before mosquitto_sub subscribed.
    await command(d, "m1");
    expect((await firstRun).stdout.trim()).toBe("m1");
    await offline(d);
    await command(d, "m2");
    await command(d, "m3");
    expect((await sub(2)).stdout.trim().split("\n")).toEqual(["m2", "m3"]);
    await offline(d);
    await command(d, "p1");
    const paho = await run("/usr/bin/python3", [
      "-c",
      PAHO_RESUME,
      JSON.stringify({ port: Number(port), until: "p1", ...creds(d) }),
    ]);
    const [present, ...messages] = paho.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as unknown);
    expect(present).toEqual({ present: true });
    // m3 may come again first: mosquitto_sub's PUBACK and its DISCONNECT can end the connection before the ack is
    // settled, and QoS 1 is at least once (the resend carries DUP).
    expect(messages.at(-1)).toEqual({ payload: "p1" });
    expect(messages.slice(0, -1).every((m) => JSON.stringify(m) === '{"payload":"m3"}')).toBe(true);
  });
});

const creds = (d: TestDevice) => ({ clientId: d.deviceID, username: d.deviceUsername, password: d.token });

/**
 * A paho MQTTv5 client resuming its session (Clean Start 0): prints session present, then each message until the one
 * whose payload is `until` (the first one when not given); no SUBSCRIBE.
 */
const PAHO_RESUME = `
import json, sys
import paho.mqtt.client as mqtt
from paho.mqtt.properties import Properties
from paho.mqtt.packettypes import PacketTypes
o = json.loads(sys.argv[1])
c = mqtt.Client(client_id=o["clientId"], protocol=mqtt.MQTTv5)
c.username_pw_set(o["username"], o["password"])
def on_connect(c, u, flags, rc, props):
    print(json.dumps({"present": bool(flags["session present"])}), flush=True)
def on_message(c, u, m):
    print(json.dumps({"payload": m.payload.decode()}), flush=True)
    if m.payload.decode() == o.get("until", m.payload.decode()):
        c.disconnect()
c.on_connect, c.on_message = on_connect, on_message
p = Properties(PacketTypes.CONNECT)
p.SessionExpiryInterval = 3600
c.connect("127.0.0.1", o["port"], keepalive=30, clean_start=False, properties=p)
c.loop_forever()
`;

/** Runs a command to its end (or 20 s); answers its output. */
function run(file: string, args: string[]) {
  return new Promise<{ stdout: string; stderr: string }>((resolve) =>
    execFile(file, args, { timeout: 20_000 }, (_err, stdout, stderr) => resolve({ stdout, stderr })),
  );
}
