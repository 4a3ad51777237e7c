import mqttPacket, { type Packet } from "mqtt-packet";
import { afterEach, describe, expect, it } from "vitest";
import { DEVICES, connectPacketOf, rawConnection, startHarness, type Harness } from "./test-support.js";

let h: Harness;
afterEach(async () => {
  await h.stop();
});

const v5 = (p: Packet) => mqttPacket.generate(p, { protocolVersion: 5 });

/** A variable byte integer (MQTT 5.0 §1.5.5). */
function varint(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return out;
}

/** An MQTT 5.0 QoS 0 PUBLISH to `topic` with `properties` as given bytes (mqtt-packet will not repeat one). */
function rawPublish(topic: string, properties: number[], payload = "x"): Buffer {
  const t = Buffer.from(topic);
  const body = [
    t.length >> 8,
    t.length & 0xff,
    ...t,
    ...varint(properties.length),
    ...properties,
    ...Buffer.from(payload),
  ];
  return Buffer.from([0x30, ...varint(body.length), ...body]);
}

/** Topic Alias 1 (property 0x23, two-byte integer). */
const ALIAS_1 = [0x23, 0x00, 0x01];
/** Content Type "a" (property 0x03, UTF-8 string). */
const CONTENT_TYPE = [0x03, 0x00, 0x01, 0x61];

/** Connects device a over a raw MQTT 5.0 connection; answers it once CONNACK came. */
async function connected() {
  const raw = await rawConnection(h.tcp.port, 5);
  raw.send(connectPacketOf(DEVICES.a, 5));
  await raw.next("connack");
  return raw;
}

const disconnectCode = (raw: { received: Packet[] }) =>
  (raw.received.find((p) => p.cmd === "disconnect") as { reasonCode?: number } | undefined)?.reasonCode;

describe("MQTT adapter: malformed or out-of-order input from an MQTT 5.0 device", () => {
  for (const reasonCode of [0x00, 0x04, 0x82]) {
    it(`stores nothing the device sends after its own DISCONNECT 0x${reasonCode.toString(16)} in the same write`, async () => {
      h = await startHarness();
      const raw = await connected();
      raw.send(
        Buffer.concat([
          v5({ cmd: "disconnect", reasonCode }),
          v5({ cmd: "publish", topic: "after", payload: Buffer.from("0"), qos: 0, retain: false, dup: false }),
          v5({
            cmd: "publish",
            topic: "after",
            payload: Buffer.from("1"),
            qos: 1,
            messageId: 7,
            retain: false,
            dup: false,
          }),
        ]),
      );
      await raw.closed;
      expect(h.registry.uplinks).toEqual([]);
      expect(raw.received.map((p) => p.cmd)).toEqual(["connack"]);
    });
  }

  it("refuses a PUBLISH repeating its Topic Alias with DISCONNECT 0x82 protocol error, storing nothing", async () => {
    h = await startHarness();
    const raw = await connected();
    raw.send(rawPublish("t", [...ALIAS_1, ...ALIAS_1]));
    await raw.closed;
    expect(disconnectCode(raw)).toBe(0x82);
    expect(h.registry.uplinks).toEqual([]);
  });

  it("refuses a PUBLISH repeating another single property with DISCONNECT 0x82, storing nothing", async () => {
    h = await startHarness();
    const raw = await connected();
    raw.send(rawPublish("t", [...CONTENT_TYPE, ...CONTENT_TYPE]));
    await raw.closed;
    expect(disconnectCode(raw)).toBe(0x82);
    expect(h.registry.uplinks).toEqual([]);
  });

  it("refuses a PUBLISH carrying a property not valid in PUBLISH with DISCONNECT 0x81 malformed packet", async () => {
    h = await startHarness();
    const raw = await connected();
    // Session Expiry Interval (0x11, four-byte integer) belongs to CONNECT, CONNACK and DISCONNECT.
    raw.send(rawPublish("t", [0x11, 0, 0, 0, 5]));
    await raw.closed;
    expect(disconnectCode(raw)).toBe(0x81);
    expect(h.registry.uplinks).toEqual([]);
  });

  it("tells a device that pipelined its CONNECT with a bad PUBLISH why it is closed", async () => {
    h = await startHarness();
    const raw = await rawConnection(h.tcp.port, 5);
    raw.send(Buffer.concat([v5(connectPacketOf(DEVICES.a, 5)), rawPublish("t", [...CONTENT_TYPE, ...CONTENT_TYPE])]));
    await raw.closed;
    expect(raw.received.map((p) => p.cmd)).toEqual(["connack", "disconnect"]);
    expect(disconnectCode(raw)).toBe(0x82);
    expect(h.registry.uplinks).toEqual([]);
  });

  it("tells a device that pipelined its CONNECT with a PUBLISH to an invalid topic why it is closed", async () => {
    h = await startHarness();
    const raw = await rawConnection(h.tcp.port, 5);
    raw.send(
      Buffer.concat([
        v5(connectPacketOf(DEVICES.a, 5)),
        v5({ cmd: "publish", topic: "a/#", payload: Buffer.from("x"), qos: 0, retain: false, dup: false }),
      ]),
    );
    await raw.closed;
    expect(raw.received.map((p) => p.cmd)).toEqual(["connack", "disconnect"]);
    expect(h.registry.uplinks).toEqual([]);
  });

  it("answers a CONNECT whose will carries a Topic Alias with CONNACK 0x81 and a reason string, opening no session", async () => {
    h = await startHarness();
    const raw = await rawConnection(h.tcp.port, 5);
    const will = { topic: "w", payload: Buffer.from("bye"), qos: 0, retain: false, properties: { topicAlias: 1 } };
    raw.send(v5(connectPacketOf(DEVICES.a, 5, { will })));
    await raw.closed;
    expect(raw.received).toMatchObject([
      { cmd: "connack", reasonCode: 0x81, properties: { reasonString: "property 0x23 is not valid in will" } },
    ]);
    expect(h.registry.events.filter((e) => e.type === "opened")).toEqual([]);
    expect(h.registry.uplinks).toEqual([]);
  });
});
