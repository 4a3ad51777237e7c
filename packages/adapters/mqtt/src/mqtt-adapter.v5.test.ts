import type { Packet } from "mqtt-packet";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuthOutcome, FakeDevice } from "@iot/adapter-core";
import { PACKET_OVERHEAD_BYTES } from "./mqtt-adapter.js";
import {
  DEVICES,
  connectPacketOf,
  nextMessage,
  rawConnection,
  roundTrip,
  startHarness,
  type Harness,
} from "./test-support.js";

let h: Harness;
afterEach(async () => {
  await h.stop();
});

const payload = (s: string) => new Uint8Array(Buffer.from(s));

/** Connects `device` over a raw MQTT 5.0 connection and answers the connection with its CONNACK. */
async function rawV5(device: FakeDevice, extra: object = {}) {
  const raw = await rawConnection(h.tcp.port, 5);
  raw.send(connectPacketOf(device, 5, extra));
  const connack = (await raw.next("connack")) as Packet & { properties?: object };
  return { raw, connack };
}

/** A refusal the registry answers instead of a session. */
const refusedWith = (outcome: Extract<AuthOutcome, { ok: false }>) => () => {
  h.registry.authenticate = () => Promise.resolve(outcome);
};

describe("MQTT adapter: MQTT 5.0", () => {
  it("accepts an MQTT 5.0 device and advertises in CONNACK what the service supports", async () => {
    h = await startHarness({ maxMessageSize: 1000 });
    const { raw, connack } = await rawV5(DEVICES.a);
    expect(connack).toMatchObject({
      reasonCode: 0,
      sessionPresent: false,
      properties: {
        maximumPacketSize: 1000 + PACKET_OVERHEAD_BYTES + 5,
        topicAliasMaximum: 32,
        receiveMaximum: 256,
        sharedSubscriptionAvailable: false,
      },
    });
    raw.destroy();
  });

  const refusals: [string, FakeDevice, (() => void) | undefined, number, number, string][] = [
    ["a wrong token", { ...DEVICES.a, token: "wrong" }, undefined, 0x86, 5, "bad user name or password"],
    ["a client id that is not the device's", { ...DEVICES.a, deviceId: "other" }, undefined, 0x87, 5, "not authorized"],
    ["a blocked device", DEVICES.blocked, undefined, 0x8a, 5, "device blocked"],
    [
      "the registry out of reach",
      DEVICES.a,
      () => {
        h.registry.unavailable = true;
      },
      0x88,
      3,
      "server unavailable, retry later",
    ],
    [
      "a tenant at its connection quota",
      DEVICES.a,
      refusedWith({ ok: false, code: "QUOTA_EXCEEDED", message: "tenant t1 holds 10 of 10" }),
      0x97,
      3,
      "the tenant's connection quota is reached",
    ],
    [
      "the adapter's authentication queue full (a reconnect storm)",
      DEVICES.a,
      refusedWith({ ok: false, code: "UNAVAILABLE", message: "authentication queue full", busy: true }),
      0x89,
      3,
      "server busy, retry later",
    ],
  ];
  it.each(refusals)(
    "refuses %s with its MQTT 5.0 reason code, and an MQTT 3.1.1 device with its 3.1.1 return code",
    async (_why, device, setUp, reasonCode, returnCode, reasonString) => {
      h = await startHarness();
      setUp?.();
      const { raw, connack } = await rawV5(device);
      expect(connack).toMatchObject({ reasonCode, sessionPresent: false });
      expect(connack.properties).toEqual({ reasonString });
      await raw.closed;
      const v4 = await rawConnection(h.tcp.port, 4);
      v4.send(connectPacketOf(device, 4));
      expect(await v4.next("connack")).toMatchObject({ returnCode });
      await v4.closed;
    },
  );

  it("serves an MQTT 5.0 device with MQTT.js: uplinks stored, a command delivered on its PUBACK, UNSUBSCRIBE honoured", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.a, { protocolVersion: 5 });
    await client.publishAsync("telemetry/temp", "21.5", { qos: 1 });
    expect(h.registry.uplinks.at(-1)).toMatchObject({ topic: "telemetry/temp", qos: 1 });
    const suback = await client.subscribeAsync("inbox", { qos: 1 });
    expect(suback).toMatchObject([{ topic: "inbox", qos: 1 }]);
    const got = nextMessage(client);
    await expect(
      h.registry.pushDownlink({ deviceIntId: 1, topic: "inbox", payload: payload("go"), qos: 1 }),
    ).resolves.toEqual({ status: "DELIVERED" });
    expect(await got).toEqual({ topic: "inbox", payload: "go" });
    const unsuback = (await client.unsubscribeAsync("inbox")) as { reasonCode?: number; granted?: number[] };
    // 0x00: the mounted subscription was found and removed (0x11 would say none existed).
    expect(unsuback.granted ?? [unsuback.reasonCode]).toEqual([0]);
    const gone = await h.registry.pushDownlink({
      deviceIntId: 1,
      topic: "inbox",
      payload: payload("late"),
      qos: 1,
      expiresAtMs: Date.now() + 150,
    });
    expect(gone).toEqual({ status: "QUEUED", message: 'expired before the device subscribed to "inbox"' });
  });

  it("mounts an UNSUBSCRIBE sent with CONNECT, before the device's CONNACK", async () => {
    h = await startHarness();
    const raw = await rawConnection(h.tcp.port, 4);
    const sub = { cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "inbox", qos: 1 }] } as Packet;
    const unsub = { cmd: "unsubscribe", messageId: 2, unsubscriptions: ["inbox"] } as Packet;
    raw.send(connectPacketOf(DEVICES.a, 4));
    raw.send(sub);
    raw.send(unsub);
    await raw.next("unsuback");
    expect(raw.received.map((p) => p.cmd)).toEqual(["connack", "suback", "unsuback"]);
    const outcome = await h.registry.pushDownlink({
      deviceIntId: 1,
      topic: "inbox",
      payload: payload("x"),
      qos: 1,
      expiresAtMs: Date.now() + 150,
    });
    expect(outcome.status).toBe("QUEUED");
    raw.destroy();
  });

  it("refuses a publish its policies deny with PUBACK 0x87 and keeps the connection", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.restricted, { protocolVersion: 5 });
    const puback = new Promise<Packet>((resolve) => client.once("packetreceive", resolve));
    await client.publishAsync("secret/x", "1", { qos: 1 }).catch(() => undefined);
    expect(await puback).toMatchObject({ cmd: "puback", reasonCode: 0x87 });
    await roundTrip(client);
    expect(client.connected).toBe(true);
    expect(h.registry.uplinks).toEqual([]);
  });

  it("resolves inbound topic aliases", async () => {
    h = await startHarness();
    const { raw } = await rawV5(DEVICES.a);
    const publish = (messageId: number, topic: string) =>
      ({
        cmd: "publish",
        messageId,
        topic,
        payload: Buffer.from(String(messageId)),
        qos: 1,
        dup: false,
        retain: false,
        properties: { topicAlias: 3 },
      }) as Packet;
    raw.send(publish(1, "telemetry/a"));
    raw.send(publish(2, ""));
    await vi.waitFor(() => expect(raw.received.filter((p) => p.cmd === "puback")).toHaveLength(2));
    expect(h.registry.uplinks.map((u) => u.topic)).toEqual(["telemetry/a", "telemetry/a"]);
    raw.destroy();
  });

  const badInput: [string, Buffer | Packet, number | undefined][] = [
    [
      "a topic alias over the maximum",
      {
        cmd: "publish",
        topic: "t",
        payload: Buffer.from("x"),
        qos: 0,
        dup: false,
        retain: false,
        properties: { topicAlias: 33 },
      },
      0x94,
    ],
    // PUBLISH "t", properties: session expiry interval (0x11), valid in CONNECT and DISCONNECT only.
    [
      "a property not valid in PUBLISH",
      Buffer.from([0x30, 0x0b, 0x00, 0x01, 0x74, 0x05, 0x11, 0, 0, 0, 9, 0x78, 0x78]),
      0x81,
    ],
    // PUBLISH "t", properties: content type (0x03) "a" twice.
    [
      "a duplicated property",
      Buffer.from([0x30, 0x0d, 0x00, 0x01, 0x74, 0x08, 0x03, 0x00, 0x01, 0x61, 0x03, 0x00, 0x01, 0x61, 0x78]),
      0x82,
    ],
    // PUBLISH whose properties length is a variable byte integer of five bytes.
    [
      "a malformed variable byte integer",
      Buffer.from([0x30, 0x09, 0x00, 0x01, 0x74, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00]),
      0x81,
    ],
  ];
  it.each(badInput)("closes the connection that sends %s and keeps serving the others", async (_what, bad, code) => {
    h = await startHarness();
    const other = await h.connect(DEVICES.b, { protocolVersion: 5 });
    const { raw } = await rawV5(DEVICES.a);
    raw.send(bad);
    await raw.closed;
    const disconnect = raw.received.find((p) => p.cmd === "disconnect");
    if (code === undefined) expect(disconnect).toBeUndefined();
    else expect(disconnect).toMatchObject({ reasonCode: code });
    expect(h.registry.uplinks).toEqual([]);
    await other.publishAsync("still/here", "1", { qos: 1 });
    expect(h.registry.uplinks.map((u) => u.topic)).toEqual(["still/here"]);
  });

  it("tells an MQTT 5.0 device why it is disconnected: packet too large, session taken over, kicked", async () => {
    h = await startHarness({ maxMessageSize: 100 });
    const big = await rawV5(DEVICES.a);
    big.raw.send({
      cmd: "publish",
      topic: "t",
      payload: Buffer.alloc(PACKET_OVERHEAD_BYTES + 200),
      qos: 0,
      dup: false,
      retain: false,
    });
    await big.raw.closed;
    expect(big.raw.received.at(-1)).toMatchObject({ cmd: "disconnect", reasonCode: 0x95 });

    const first = await rawV5(DEVICES.a);
    const second = await rawV5(DEVICES.a);
    await first.raw.closed;
    // aedes' own takeover: 0x8E without a reason string (no hook to add one).
    expect(first.raw.received.at(-1)).toMatchObject({ cmd: "disconnect", reasonCode: 0x8e });

    await vi.waitFor(() => expect(h.adapter.stats.clients).toBe(1));
    h.registry.kick(1, "blocked by an administrator");
    await second.raw.closed;
    expect(second.raw.received.at(-1)).toMatchObject({
      cmd: "disconnect",
      reasonCode: 0x98,
      properties: { reasonString: "blocked by an administrator" },
    });
  });

  it("sends DISCONNECT 0x8B with a reason string to an MQTT 5.0 device when the adapter stops", async () => {
    h = await startHarness();
    const { raw } = await rawV5(DEVICES.a);
    // Connected once a packet after CONNECT is answered (aedes finishes the connection after writing CONNACK).
    raw.send({ cmd: "pingreq" });
    await raw.next("pingresp");
    await h.stop();
    await raw.closed;
    expect(raw.received.filter((p) => p.cmd === "disconnect")).toEqual([
      expect.objectContaining({ reasonCode: 0x8b, properties: { reasonString: "server shutting down" } }),
    ]);
    h = await startHarness(); // the one afterEach stops
  });

  it("sends DISCONNECT 0x8D to an MQTT 5.0 device silent past its keep-alive", async () => {
    h = await startHarness();
    const { raw } = await rawV5(DEVICES.a, { keepalive: 1 });
    await raw.closed;
    expect(raw.received.at(-1)).toMatchObject({
      cmd: "disconnect",
      reasonCode: 0x8d,
      properties: { reasonString: "no packet within one and a half times the keep alive of 1 s" },
    });
    await vi.waitFor(() =>
      expect(h.registry.events.flatMap((e) => (e.type === "closed" ? [e.reason] : []))).toEqual(["keepalive timeout"]),
    );
  });

  it("keeps an MQTT 3.1.1 device and an MQTT 5.0 device of one tenant side by side", async () => {
    h = await startHarness();
    const v4 = await h.connect(DEVICES.a, { protocolVersion: 4 });
    const v5 = await h.connect(DEVICES.b, { protocolVersion: 5 });
    await Promise.all([v4.subscribeAsync("inbox", { qos: 1 }), v5.subscribeAsync("inbox", { qos: 1 })]);
    await Promise.all([v4.publishAsync("up", "4", { qos: 1 }), v5.publishAsync("up", "5", { qos: 1 })]);
    expect(h.registry.uplinks.map((u) => [u.deviceIntId, Buffer.from(u.payload).toString()]).sort()).toEqual([
      [1, "4"],
      [2, "5"],
    ]);
    const got = [nextMessage(v4), nextMessage(v5)];
    const sent = await Promise.all([
      h.registry.pushDownlink({ deviceIntId: 1, topic: "inbox", payload: payload("to-4"), qos: 1 }),
      h.registry.pushDownlink({ deviceIntId: 2, topic: "inbox", payload: payload("to-5"), qos: 1 }),
    ]);
    expect(sent).toEqual([{ status: "DELIVERED" }, { status: "DELIVERED" }]);
    expect(await Promise.all(got)).toEqual([
      { topic: "inbox", payload: "to-4" },
      { topic: "inbox", payload: "to-5" },
    ]);
  });
});
