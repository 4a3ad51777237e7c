import mqttPacket, { type Packet } from "mqtt-packet";
import { quietFor } from "@iot/config/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RECEIVE_MAXIMUM } from "./reason-codes.js";
import { DEVICES, connectPacketOf, rawConnection, startHarness, type Harness } from "./test-support.js";

let h: Harness;
afterEach(async () => {
  await h.stop();
});

const v5 = (p: Packet) => mqttPacket.generate(p, { protocolVersion: 5 });
const publish = (messageId: number, qos: 1 | 2) =>
  v5({
    cmd: "publish",
    topic: "t",
    payload: Buffer.from(String(messageId)),
    qos,
    messageId,
    retain: false,
    dup: false,
  });

async function connected() {
  const raw = await rawConnection(h.tcp.port, 5);
  raw.send(connectPacketOf(DEVICES.a, 5));
  await raw.next("connack");
  return raw;
}

const disconnectCode = (raw: { received: Packet[] }) =>
  (raw.received.find((p) => p.cmd === "disconnect") as { reasonCode?: number } | undefined)?.reasonCode;
const count = (raw: { received: Packet[] }, cmd: string) => raw.received.filter((p) => p.cmd === cmd).length;

describe("MQTT adapter: Receive Maximum (MQTT 5.0 §3.3.4)", () => {
  it("disconnects with 0x93 a device with more unacknowledged QoS 1 publishes than CONNACK allowed, storing not the extra one", async () => {
    h = await startHarness();
    h.registry.autoAck = false; // no PUBACK goes out: every publish stays unacknowledged
    const raw = await connected();
    const ids = Array.from({ length: RECEIVE_MAXIMUM + 1 }, (_, k) => k + 1);
    raw.send(Buffer.concat(ids.map((id) => publish(id, 1))));
    await raw.closed;
    expect(disconnectCode(raw)).toBe(0x93);
    expect(h.registry.uplinks.map((u) => Buffer.from(u.payload).toString())).not.toContain(String(ids.length));
  });

  it("counts a QoS 2 publish until its PUBCOMP: room comes back after one, and the next one over is refused", async () => {
    h = await startHarness();
    const raw = await connected();
    raw.send(Buffer.concat(Array.from({ length: RECEIVE_MAXIMUM }, (_, k) => publish(k + 1, 2))));
    await vi.waitFor(() => expect(count(raw, "pubrec")).toBe(RECEIVE_MAXIMUM), 5000);
    raw.send(v5({ cmd: "pubrel", messageId: 1 }));
    await raw.next("pubcomp");
    raw.send(publish(1000, 2));
    await vi.waitFor(() => expect(count(raw, "pubrec")).toBe(RECEIVE_MAXIMUM + 1), 5000);
    raw.send(publish(1001, 2));
    await raw.closed;
    expect(disconnectCode(raw)).toBe(0x93);
    expect(h.registry.uplinks).toHaveLength(RECEIVE_MAXIMUM + 1);
  });

  it("does not count a resend (DUP) of a publish still unacknowledged twice", async () => {
    h = await startHarness();
    const raw = await connected();
    raw.send(Buffer.concat(Array.from({ length: RECEIVE_MAXIMUM }, (_, k) => publish(k + 1, 2))));
    await vi.waitFor(() => expect(count(raw, "pubrec")).toBe(RECEIVE_MAXIMUM), 5000);
    raw.send(
      v5({ cmd: "publish", topic: "t", payload: Buffer.from("1"), qos: 2, messageId: 1, retain: false, dup: true }),
    );
    await vi.waitFor(() => expect(count(raw, "pubrec")).toBe(RECEIVE_MAXIMUM + 1), 5000);
    expect(disconnectCode(raw)).toBeUndefined();
    raw.destroy();
  });

  it("has at most the device's own Receive Maximum of QoS 1 commands in flight to it; the next waits for a PUBACK", async () => {
    h = await startHarness();
    const raw = await rawConnection(h.tcp.port, 5);
    raw.send(connectPacketOf(DEVICES.a, 5, { properties: { receiveMaximum: 2 } }));
    await raw.next("connack");
    raw.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "inbox", qos: 1 }] });
    await raw.next("suback");
    const outcomes = [1, 2, 3].map((id) =>
      h.registry.pushDownlink({ id, deviceIntId: 1, payload: new Uint8Array(Buffer.from(`c${id}`)), qos: 1 }),
    );
    await vi.waitFor(() => expect(count(raw, "publish")).toBe(2));
    await quietFor(200, "a third command sent past the device's Receive Maximum would come within this");
    expect(count(raw, "publish")).toBe(2);
    const first = raw.received.find((p) => p.cmd === "publish") as Packet & { messageId: number };
    raw.send({ cmd: "puback", messageId: first.messageId, reasonCode: 0 });
    await vi.waitFor(() => expect(count(raw, "publish")).toBe(3));
    const third = raw.received.filter((p) => p.cmd === "publish")[2] as Packet & { payload: Buffer };
    expect(third.payload.toString()).toBe("c3");
    expect(await outcomes[0]).toEqual({ status: "DELIVERED" });
    raw.destroy();
    expect(await outcomes[2]).toMatchObject({ status: "FAILED" });
  });
});
