import type { IPublishPacket } from "mqtt-packet";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_KEPT_PROPERTIES_BYTES } from "./hooks/uplink-properties.js";
import { DEVICES, connectPacketOf, rawConnection, startHarness, type Harness } from "./test-support.js";

let h: Harness;
afterEach(async () => {
  await h.stop();
});

const payload = (s: string) => new Uint8Array(Buffer.from(s));

describe("MQTT adapter: MQTT 5.0 PUBLISH properties", () => {
  it("keeps a v5 uplink's user properties, content type and payload format indicator as its metadata", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.a, { protocolVersion: 5 });
    await client.publishAsync("telemetry", '{"t":1}', {
      qos: 1,
      properties: {
        userProperties: { unit: "C", tag: ["a", "b"] },
        contentType: "application/json",
        payloadFormatIndicator: true,
        responseTopic: "to/device",
        correlationData: Buffer.from("q1"),
      },
    });
    expect(JSON.parse(h.registry.uplinks.at(-1)!.metadata!)).toEqual({
      userProperties: { unit: "C", tag: ["a", "b"] },
      contentType: "application/json",
      payloadFormatIndicator: 1,
      responseTopic: "to/device",
      correlationData: Buffer.from("q1").toString("base64"),
    });
    await client.publishAsync("plain", "x", { qos: 1 });
    expect(h.registry.uplinks.at(-1)!.metadata).toBeUndefined();
  });

  it("keeps a v3.1.1 uplink as before: no metadata", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.a, { protocolVersion: 4 });
    await client.publishAsync("telemetry", "1", { qos: 1 });
    expect(h.registry.uplinks.at(-1)).toMatchObject({ topic: "telemetry" });
    expect(h.registry.uplinks.at(-1)!.metadata).toBeUndefined();
  });

  it("refuses a publish whose properties are over the bound with DISCONNECT 0x97, storing nothing", async () => {
    h = await startHarness();
    const raw = await rawConnection(h.tcp.port, 5);
    raw.send(connectPacketOf(DEVICES.a, 5));
    await raw.next("connack");
    raw.send({
      cmd: "publish",
      messageId: 1,
      topic: "t",
      payload: Buffer.from("x"),
      qos: 1,
      dup: false,
      retain: false,
      properties: { userProperties: { big: "x".repeat(MAX_KEPT_PROPERTIES_BYTES) } },
    });
    await raw.closed;
    expect(raw.received.at(-1)).toMatchObject({ cmd: "disconnect", reasonCode: 0x97 });
    expect(h.registry.uplinks).toEqual([]);
  });

  it("sends a command's properties and its remaining TTL to a v5 device, and none to a v3.1.1 device", async () => {
    h = await startHarness();
    const v5 = await h.connect(DEVICES.a, { protocolVersion: 5 });
    const v4 = await h.connect(DEVICES.b, { protocolVersion: 4 });
    await Promise.all([v5.subscribeAsync("inbox", { qos: 1 }), v4.subscribeAsync("inbox", { qos: 1 })]);
    const packets = [v5, v4].map(
      (c) => new Promise<IPublishPacket>((resolve) => c.once("message", (_t, _p, packet) => resolve(packet))),
    );
    const properties = JSON.stringify({
      userProperties: { k: "v" },
      contentType: "text/plain",
      payloadFormatIndicator: 1,
      responseTopic: "resp",
      correlationData: "c-1",
    });
    const expiresAtMs = Date.now() + 30_000;
    const sent = await Promise.all(
      [1, 2].map((deviceIntId) =>
        h.registry.pushDownlink({
          deviceIntId,
          topic: "inbox",
          payload: payload("go"),
          qos: 1,
          expiresAtMs,
          properties,
        }),
      ),
    );
    expect(sent).toEqual([{ status: "DELIVERED" }, { status: "DELIVERED" }]);
    const [toV5, toV4] = await Promise.all(packets);
    expect(toV5!.properties).toMatchObject({
      userProperties: { k: "v" },
      contentType: "text/plain",
      payloadFormatIndicator: true,
      responseTopic: "resp",
      correlationData: Buffer.from("c-1"),
    });
    expect(toV5!.properties!.messageExpiryInterval).toBeGreaterThanOrEqual(29);
    expect(toV5!.properties!.messageExpiryInterval).toBeLessThanOrEqual(30);
    expect(toV4!.properties).toBeUndefined();
  });

  it("answers a request: the device's reply on the response topic carries the correlation data to the registry", async () => {
    h = await startHarness();
    const device = await h.connect(DEVICES.a, { protocolVersion: 5 });
    await device.subscribeAsync("inbox", { qos: 1 });
    device.on("message", (_topic, body, packet: IPublishPacket) => {
      const { responseTopic, correlationData } = packet.properties ?? {};
      if (responseTopic)
        device.publish(responseTopic, `re:${body.toString()}`, { qos: 1, properties: { correlationData } });
    });
    const properties = JSON.stringify({ responseTopic: "reply/1", correlationData: "r-7" });
    await h.registry.pushDownlink({ deviceIntId: 1, topic: "inbox", payload: payload("ping"), qos: 1, properties });
    await expect.poll(() => h.registry.uplinks.length).toBe(1);
    const answer = h.registry.uplinks[0]!;
    expect(answer).toMatchObject({ topic: "reply/1" });
    expect(Buffer.from(answer.payload).toString()).toBe("re:ping");
    expect(JSON.parse(answer.metadata!)).toEqual({ correlationData: Buffer.from("r-7").toString("base64") });
  });
});
