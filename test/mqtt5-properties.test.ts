/**
 * MQTT 5.0 PUBLISH properties end to end, with MQTT.js (`protocolVersion: 5`) as the device against the fleet's
 * processes: an uplink's user properties, content type and payload format indicator kept with it (REST events, the
 * northbound stream), a command's properties and remaining TTL on its PUBLISH, and request/response, the device's
 * answer settling the command's control log (publishResult), all checked through REST.
 */
import mqtt, { type IClientOptions, type IPublishPacket, type MqttClient } from "mqtt";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

let t: TestFleet;
let productID: string;
const clients: MqttClient[] = [];

beforeAll(async () => {
  t = await startTestFleet({ IOT_COMMAND_TTL: "600" }, { adapters: ["mqtt-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "mqtt5-props", cloudProtocol: 1 })).body.productID;
}, 90_000);
afterEach(() => {
  for (const c of clients.splice(0)) c.end(true);
});
afterAll(async () => {
  await t?.close();
});

/** Connects `d` with MQTT.js at `protocolVersion`. */
async function connect(d: TestDevice, protocolVersion: 4 | 5): Promise<MqttClient> {
  const options: IClientOptions = {
    reconnectPeriod: 0,
    connectTimeout: 5000,
    protocolVersion,
    clientId: d.deviceID,
    username: d.deviceUsername,
    password: d.token,
  };
  const client = await mqtt.connectAsync(t.mqttUrl, options);
  clients.push(client);
  return client;
}

type Event = { topic: string; payload: string; metadata?: unknown };
const events = async (d: TestDevice) => (await t.api("GET", `/devices/${d.id}/events`)).body.items as Event[];
const controlLogs = async (d: TestDevice) =>
  (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items as Array<{
    id: number;
    publishStatus: number;
    publishResult: string | null;
  }>;

/** The tenant's northbound events of `deviceID` so far, read from the SSE stream from its start. */
async function streamed(deviceID: string, until: (events: Array<{ type: string; data: any }>) => boolean) {
  const ac = new AbortController();
  const res = await fetch(`${t.apiUrl}/stream?lastEventID=0&deviceID=${encodeURIComponent(deviceID)}`, {
    headers: { authorization: `Bearer ${t.token}` },
    signal: ac.signal,
  });
  const out: Array<{ type: string; data: any }> = [];
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const type = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (type && data) out.push({ type, data: JSON.parse(data) });
      }
      if (until(out)) return out;
    }
  } finally {
    ac.abort();
  }
  return out;
}

describe("MQTT 5.0 properties end to end", () => {
  it("keeps a v5 uplink's properties in REST and the northbound stream, and a v3.1.1 uplink without any", async () => {
    const d5 = await t.newDevice(productID, "props-v5");
    const d4 = await t.newDevice(productID, "props-v4");
    const v5 = await connect(d5, 5);
    const v4 = await connect(d4, 4);
    await v5.publishAsync("telemetry", '{"temp":21.5}', {
      qos: 1,
      properties: {
        userProperties: { unit: "C", sensor: ["s1", "s2"] },
        contentType: "application/json",
        payloadFormatIndicator: true,
      },
    });
    await v4.publishAsync("telemetry", "4", { qos: 1 });
    const metadata = {
      userProperties: { unit: "C", sensor: ["s1", "s2"] },
      contentType: "application/json",
      payloadFormatIndicator: 1,
    };
    expect((await events(d5))[0]).toMatchObject({ topic: "telemetry", payload: '{"temp":21.5}', metadata });
    const [plain] = await events(d4);
    expect(plain).toMatchObject({ topic: "telemetry", payload: "4" });
    expect(plain).not.toHaveProperty("metadata");
    const all = (await t.api("GET", `/device_events?deviceID_like=${d5.deviceID}`)).body.items as Event[];
    expect(all[0]).toMatchObject({ metadata });
    const feed = await streamed(d5.deviceID, (e) => e.some((x) => x.type === "uplink"));
    expect(feed.find((x) => x.type === "uplink")!.data.data).toMatchObject({ topic: "telemetry", metadata });
  });

  it("sends a command's properties and remaining TTL to a v5 device, whose answer settles the command", async () => {
    const d = await t.newDevice(productID, "props-rr");
    const device = await connect(d, 5);
    await device.subscribeAsync("inbox", { qos: 1 });
    const received = new Promise<IPublishPacket>((resolve) =>
      device.once("message", (_topic, body, packet: IPublishPacket) => {
        const { responseTopic, correlationData } = packet.properties ?? {};
        // The device answers the request on its response topic, repeating the correlation data.
        device.publish(responseTopic!, `state of ${body.toString()}: on`, { qos: 1, properties: { correlationData } });
        resolve(packet);
      }),
    );
    const r = await t.api("POST", "/device_publish", {
      deviceID: d.deviceID,
      payload: "lamp",
      userProperties: { op: "read" },
      contentType: "text/plain",
      payloadFormatIndicator: 1,
      responseTopic: "replies/lamp",
      correlationData: "req-42",
    });
    expect(r.status).toBe(201);
    const packet = await received;
    expect(packet.properties).toMatchObject({
      userProperties: { op: "read" },
      contentType: "text/plain",
      payloadFormatIndicator: true,
      responseTopic: "replies/lamp",
      correlationData: Buffer.from("req-42"),
    });
    expect(packet.properties!.messageExpiryInterval).toBeGreaterThan(590);
    expect(packet.properties!.messageExpiryInterval).toBeLessThanOrEqual(600);

    await expect
      .poll(async () => (await controlLogs(d)).find((l) => l.id === r.body.controlLogIntID), { timeout: 10_000 })
      .toMatchObject({ publishStatus: 2, publishResult: "state of lamp: on" });
    expect((await events(d))[0]).toMatchObject({
      topic: "replies/lamp",
      payload: "state of lamp: on",
      metadata: { correlationData: Buffer.from("req-42").toString("base64") },
    });
    const feed = await streamed(d.deviceID, (e) => e.some((x) => x.type === "command_result" && x.data.data.result));
    expect(feed.find((x) => x.type === "command_result" && x.data.data.result)!.data.data).toMatchObject({
      controlLogID: r.body.controlLogIntID,
      result: "state of lamp: on",
    });
  });

  it("sends a v3.1.1 device the same command without properties", async () => {
    const d = await t.newDevice(productID, "props-rr-v4");
    const device = await connect(d, 4);
    await device.subscribeAsync("inbox", { qos: 1 });
    const received = new Promise<IPublishPacket>((resolve) =>
      device.once("message", (_topic, _body, packet: IPublishPacket) => resolve(packet)),
    );
    const r = await t.api("POST", "/device_publish", {
      deviceID: d.deviceID,
      payload: "lamp",
      responseTopic: "replies/lamp",
      correlationData: "req-43",
    });
    expect(r.status).toBe(201);
    expect((await received).properties).toBeUndefined();
    await expect
      .poll(async () => (await controlLogs(d))[0], { timeout: 10_000 })
      .toMatchObject({ publishStatus: 2, publishResult: null });
  });
});
