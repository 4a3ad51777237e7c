/**
 * QoS 2 commands end to end, against the MQTT adapter as a process: `device_publish` and `group_publish` with qos 2
 * reach third-party clients (Mosquitto's mosquitto_sub -q 2, MQTT.js) through PUBLISH, PUBREC, PUBREL, PUBCOMP
 * exactly once, also when the device drops in the middle of the flow, and the control log (read through REST)
 * follows the packets: issued (1) until the PUBCOMP, delivered (2) on it.
 */
import { spawn } from "node:child_process";
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

let t: TestFleet;
let productID: string;
const clients: MqttClient[] = [];

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["mqtt-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "qos2", cloudProtocol: 1 })).body.productID;
}, 90_000);
afterAll(async () => {
  for (const c of clients) c.end(true);
  await t?.close();
});

const statusOf = async (d: TestDevice, controlLogIntID: number) =>
  (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items.find((l: { id: number }) => l.id === controlLogIntID)
    ?.publishStatus;

const online = async (d: TestDevice) => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus;

/**
 * An MQTT.js device connection (3.1.1, no automatic reconnect) that records the packet types it receives and the
 * messages its application is handed, subscribed to `inbox` at QoS 2.
 */
async function mqttJsDevice(d: TestDevice, extra: IClientOptions = {}) {
  const client = mqtt.connect(t.mqttUrl, {
    clientId: d.deviceID,
    username: d.deviceUsername,
    password: d.token,
    protocolVersion: 4,
    reconnectPeriod: 0,
    connectTimeout: 5000,
    ...extra,
  });
  clients.push(client);
  const packets: Array<{ cmd: string; dup?: boolean; messageId?: number }> = [];
  const messages: string[] = [];
  client.on("packetreceive", (p) =>
    packets.push({
      cmd: p.cmd,
      ...("dup" in p ? { dup: p.dup } : {}),
      ...("messageId" in p ? { messageId: p.messageId } : {}),
    }),
  );
  client.on("message", (_topic, payload) => messages.push(payload.toString()));
  await new Promise<void>((resolve, reject) => {
    client.once("connect", () => resolve());
    client.once("error", reject);
  });
  await client.subscribeAsync("inbox", { qos: 2 });
  return { client, packets, messages };
}

const publish = async (d: TestDevice, payload: string) => {
  const r = await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload, qos: 2 });
  expect([r.status, r.body.publishStatus]).toEqual([201, "1"]);
  return r.body.controlLogIntID as number;
};

describe("QoS 2 commands over MQTT", () => {
  it.each(["311", "5"])(
    "reach mosquitto_sub -q 2 (-V %s) through PUBREC, PUBREL and PUBCOMP; the control log becomes 2",
    async (version) => {
      const d = await t.newDevice(productID, `mosq-${version}`);
      const url = new URL(t.mqttUrl);
      // Line-buffered (stdbuf execs it): its debug lines (-d) reach the pipe as they are printed.
      const sub = spawn("stdbuf", [
        "-oL",
        "mosquitto_sub",
        ...["-h", url.hostname, "-p", url.port, "-V", version],
        ...["-i", d.deviceID, "-u", d.deviceUsername, "-P", d.token, "-t", "inbox", "-q", "2", "-C", "1", "-d"],
      ]);
      let out = "";
      sub.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      try {
        await expect.poll(() => out, { timeout: 5_000 }).toContain("received SUBACK");
        const id = await publish(d, `exactly-once-${version}`);
        await expect.poll(() => out.split("\n"), { timeout: 5_000 }).toContain(`exactly-once-${version}`);
        await expect.poll(() => statusOf(d, id), { timeout: 5_000 }).toBe(2);
        const flow = out
          .split("\n")
          .map((l) =>
            /(received|sending) (PUBLISH|PUBREC|PUBREL|PUBCOMP)/i.exec(l)?.slice(1, 3).join(" ").toLowerCase(),
          )
          .filter(Boolean);
        expect(flow).toEqual(["received publish", "sending pubrec", "received pubrel", "sending pubcomp"]);
        expect(out).toMatch(/received PUBLISH \(d0, q2/);
      } finally {
        sub.kill();
      }
    },
  );

  it("sends the PUBREL again, never the PUBLISH, to a device that dropped after its PUBREC; 2 on the PUBCOMP", async () => {
    const d = await t.newDevice(productID, "drop-after-pubrec");
    const first = await mqttJsDevice(d);
    const handed: string[] = [];
    // MQTT.js hands a QoS 2 message to the application when PUBREL comes and answers PUBCOMP once it is handled:
    // this one takes it and drops the connection before answering.
    first.client.handleMessage = (packet, _done) => {
      handed.push(packet.payload.toString());
      first.client.stream.destroy();
    };
    const id = await publish(d, "open valve");
    await expect.poll(() => handed, { timeout: 5_000 }).toEqual(["open valve"]);
    await expect.poll(() => online(d), { timeout: 5_000 }).toBe(0);
    expect(first.packets.map((p) => p.cmd)).toEqual(["connack", "suback", "publish", "pubrel"]);
    expect(await statusOf(d, id)).toBe(1);

    const second = await mqttJsDevice(d);
    await expect.poll(() => statusOf(d, id), { timeout: 5_000 }).toBe(2);
    const resent = second.packets.find((p) => p.cmd === "pubrel");
    expect(resent?.messageId).toBe(first.packets.find((p) => p.cmd === "publish")?.messageId);
    await quietFor(300, "a PUBLISH sent again would come within this");
    expect(second.packets.map((p) => p.cmd)).not.toContain("publish");
    expect([...handed, ...second.messages]).toEqual(["open valve"]);
  });

  it("sends a command again, as a new message, to a device that dropped before its PUBREC; 2 on the PUBCOMP", async () => {
    const d = await t.newDevice(productID, "drop-before-pubrec");
    // The device never answers the PUBLISH: it drops the connection as it arrives (before its PUBREC). MQTT.js
    // lets the application hold the PUBREC only over MQTT 5.0.
    const first = await mqttJsDevice(d, {
      protocolVersion: 5,
      customHandleAcks: () => {
        first.client.stream.destroy();
      },
    });
    // Online first, so that "offline" below is the drop, not the connect not yet written.
    await expect.poll(() => online(d), { timeout: 5_000 }).toBe(1);
    const id = await publish(d, "close valve");
    await expect.poll(() => online(d), { timeout: 5_000 }).toBe(0);
    expect(first.packets.map((p) => p.cmd)).toEqual(["connack", "suback", "publish"]);
    expect(first.messages).toEqual([]);
    expect(await statusOf(d, id)).toBe(1);

    const second = await mqttJsDevice(d);
    await expect.poll(() => statusOf(d, id), { timeout: 5_000 }).toBe(2);
    expect(second.messages).toEqual(["close valve"]);
    expect(second.packets.filter((p) => p.cmd === "publish")).toEqual([
      expect.objectContaining({ cmd: "publish", dup: false }),
    ]);
  });

  it("tracks a group_publish with qos 2 per member until its PUBCOMP", async () => {
    const d = await t.newDevice(productID, "group-member");
    const group = (await t.api("POST", "/groups", { productID, groupName: "qos2", description: "g" })).body;
    expect((await t.api("POST", `/groups/${group.id}/devices`, { ids: [d.id] })).status).toBeLessThan(300);
    const device = await mqttJsDevice(d);
    const r = await t.api("POST", "/group_publish", { groupID: group.groupID, payload: "all on", qos: 2 });
    expect(r.status).toBe(201);
    await expect
      .poll(async () => (await t.api("GET", r.body.statusUrl)).body, { timeout: 5_000 })
      .toMatchObject({ status: 3, result: { total: 1, success: 1, failed: 0, pending: 0 } });
    expect(device.messages).toEqual(["all on"]);
    expect(device.packets.filter((p) => p.cmd === "publish" || p.cmd === "pubrel").map((p) => p.cmd)).toEqual([
      "publish",
      "pubrel",
    ]);
  });
});
