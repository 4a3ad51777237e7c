import type { DownlinkOutcome } from "@iot/adapter-core";
import { quietFor } from "@iot/config/testing";
import type { IPublishPacket, Packet } from "mqtt-packet";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEVICES, connectPacketOf, rawConnection, startHarness, type Harness } from "./test-support.js";

let h: Harness;
const raws: { destroy(): void }[] = [];
afterEach(async () => {
  for (const r of raws.splice(0)) r.destroy();
  await h.stop();
});

const payload = (s: string) => new Uint8Array(Buffer.from(s));

/** A raw device connection of DEVICES.a subscribed to `inbox` at `qos`, with its CONNACK and SUBACK read. */
async function subscribedDevice(protocolVersion: 4 | 5, qos: 0 | 1 | 2 = 2) {
  const raw = await rawConnection(h.tcp.port, protocolVersion);
  raws.push(raw);
  raw.send(connectPacketOf(DEVICES.a, protocolVersion));
  await raw.next("connack");
  raw.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "inbox", qos }] });
  await raw.next("suback");
  return raw;
}

/** Pushes a QoS 2 command for DEVICES.a and records its outcome when it comes. */
function pushQos2(text: string, expiresAtMs = 0) {
  const outcome: { value?: DownlinkOutcome } = {};
  const settled = h.registry
    .pushDownlink({ id: 9, deviceIntId: 1, payload: payload(text), qos: 2, expiresAtMs })
    .then((r) => (outcome.value = r));
  return { outcome, settled };
}

const cmds = (packets: Packet[]) => packets.map((p) => p.cmd);

describe("MQTT adapter: QoS 2 commands", () => {
  it("goes PUBLISH, PUBREC, PUBREL, PUBCOMP and reports DELIVERED only on the PUBCOMP", async () => {
    h = await startHarness();
    const raw = await subscribedDevice(4);
    const { outcome, settled } = pushQos2("reboot");
    const publish = (await raw.next("publish")) as IPublishPacket;
    expect(publish).toMatchObject({ topic: "inbox", qos: 2, dup: false });
    expect(publish.payload.toString()).toBe("reboot");
    raw.send({ cmd: "pubrec", messageId: publish.messageId! });
    const pubrel = await raw.next("pubrel");
    expect(pubrel).toMatchObject({ messageId: publish.messageId });
    await quietFor(100, "an outcome that did not wait for the PUBCOMP would come within this");
    expect(outcome.value).toBeUndefined();
    raw.send({ cmd: "pubcomp", messageId: publish.messageId! });
    await settled;
    expect(outcome.value).toEqual({ status: "DELIVERED" });
    expect(cmds(raw.received)).toEqual(["connack", "suback", "publish", "pubrel"]);
  });

  it("gives a command past PUBREC back with its packet identifier, and sends only PUBREL when it comes again", async () => {
    h = await startHarness();
    const first = await subscribedDevice(4);
    const { settled } = pushQos2("open valve");
    const publish = (await first.next("publish")) as IPublishPacket;
    first.send({ cmd: "pubrec", messageId: publish.messageId! });
    await first.next("pubrel");
    first.destroy(); // drops before its PUBCOMP
    const resume = { packetId: publish.messageId!, released: true };
    await expect(settled).resolves.toEqual({
      status: "QUEUED",
      message: "device disconnected before its PUBCOMP",
      resume,
    });

    // The registry sends it to the device's next connection (on whichever adapter) with that identifier.
    const second = await rawConnection(h.tcp.port, 4);
    raws.push(second);
    second.send(connectPacketOf(DEVICES.a, 4));
    await second.next("connack");
    const again = h.registry.pushDownlink({ id: 9, deviceIntId: 1, payload: payload("open valve"), qos: 2, resume });
    const pubrel = await second.next("pubrel");
    expect(pubrel).toMatchObject({ messageId: publish.messageId });
    second.send({ cmd: "pubcomp", messageId: publish.messageId! });
    await expect(again).resolves.toEqual({ status: "DELIVERED" });
    // Subscribing again brings no copy of the command.
    second.send({ cmd: "subscribe", messageId: 2, subscriptions: [{ topic: "inbox", qos: 2 }] });
    await second.next("suback");
    await quietFor(100, "a PUBLISH sent again would come within this");
    expect(cmds(second.received)).toEqual(["connack", "pubrel", "suback"]);
  });

  it("numbers a new command around the identifier of a PUBREL still awaiting its PUBCOMP", async () => {
    h = await startHarness();
    const raw = await subscribedDevice(4);
    const resume = { packetId: 1, released: true };
    const resumed = h.registry.pushDownlink({ id: 9, deviceIntId: 1, payload: payload("first"), qos: 2, resume });
    const resent = await raw.next("pubrel");
    expect(resent.messageId).toBe(1);
    const next = h.registry.pushDownlink({ id: 10, deviceIntId: 1, payload: payload("second"), qos: 2 });
    const another = (await raw.next("publish")) as IPublishPacket;
    expect(another.messageId).not.toBe(resent.messageId);
    raw.send({ cmd: "pubcomp", messageId: 1 });
    await expect(resumed).resolves.toEqual({ status: "DELIVERED" });
    raw.send({ cmd: "pubrec", messageId: another.messageId! });
    await vi.waitFor(() => expect(cmds(raw.received).filter((c) => c === "pubrel")).toHaveLength(2));
    raw.send({ cmd: "pubcomp", messageId: another.messageId! });
    await expect(next).resolves.toEqual({ status: "DELIVERED" });
  });

  it("gives the command back (QUEUED) when the device disconnects before its PUBREC", async () => {
    h = await startHarness();
    const raw = await subscribedDevice(4);
    const { settled } = pushQos2("x");
    await raw.next("publish");
    raw.destroy();
    await expect(settled).resolves.toEqual({ status: "QUEUED", message: "device disconnected before its PUBREC" });
  });

  it("fails the command, with no PUBREL, when an MQTT 5.0 device refuses it in its PUBREC", async () => {
    h = await startHarness();
    const raw = await subscribedDevice(5);
    const { settled } = pushQos2("x");
    const publish = (await raw.next("publish")) as IPublishPacket;
    raw.send({ cmd: "pubrec", messageId: publish.messageId!, reasonCode: 0x80 });
    await expect(settled).resolves.toEqual({
      status: "FAILED",
      message: "the device refused it (PUBREC reason code 0x80)",
    });
    await quietFor(100, "a PUBREL would come within this");
    expect(cmds(raw.received)).toEqual(["connack", "suback", "publish"]);
  });

  it("fails the command when no PUBCOMP follows the PUBREL in time", async () => {
    h = await startHarness({ downlinkAckTimeoutMs: 200 });
    const raw = await subscribedDevice(4);
    const { settled } = pushQos2("x");
    const publish = (await raw.next("publish")) as IPublishPacket;
    raw.send({ cmd: "pubrec", messageId: publish.messageId! });
    await expect(settled).resolves.toEqual({ status: "FAILED", message: "no PUBCOMP within 200 ms" });
  });

  it("sends at QoS 1, settled by its PUBACK, when the device subscribed with QoS 1", async () => {
    h = await startHarness();
    const raw = await subscribedDevice(4, 1);
    const { settled } = pushQos2("x");
    const publish = (await raw.next("publish")) as IPublishPacket;
    expect(publish.qos).toBe(1);
    raw.send({ cmd: "puback", messageId: publish.messageId! });
    await expect(settled).resolves.toEqual({ status: "DELIVERED" });
  });
});
