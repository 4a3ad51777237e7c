import type { AuthOutcome, MqttSessionState } from "@iot/adapter-core";
import type { IConnackPacket, IPublishPacket } from "mqtt-packet";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEVICES, connectPacketOf, rawConnection, startHarness, type Harness } from "./test-support.js";

let h: Harness;
const raws: { destroy(): void }[] = [];
afterEach(async () => {
  for (const r of raws.splice(0)) r.destroy();
  await h.stop();
});

const payload = (s: string) => new Uint8Array(Buffer.from(s));

/** Makes the fake registry answer every authentication with `session` as the one stored (it stores none itself). */
function storedSession(session: MqttSessionState) {
  const authenticate = h.registry.authenticate.bind(h.registry);
  h.registry.authenticate = async (...args): Promise<AuthOutcome> => {
    const outcome = await authenticate(...args);
    return outcome.ok ? { ok: true, session: { ...outcome.session, mqttSession: session } } : outcome;
  };
}

/** A raw MQTT connection of DEVICES.a asking for a persistent session, with its CONNACK. */
async function persistentDevice(protocolVersion: 4 | 5) {
  const raw = await rawConnection(h.tcp.port, protocolVersion);
  raws.push(raw);
  const extra = protocolVersion === 5 ? { clean: false, properties: { sessionExpiryInterval: 60 } } : { clean: false };
  raw.send(connectPacketOf(DEVICES.a, protocolVersion, extra));
  const connack = (await raw.next("connack")) as IConnackPacket;
  return { raw, connack };
}

describe("MQTT adapter: persistent sessions", () => {
  it("restores the subscriptions the registry stored, answering session present 1, and delivers on them", async () => {
    h = await startHarness();
    storedSession({ present: true, subscriptions: [{ topic: "inbox", qos: 1 }] });
    const { raw, connack } = await persistentDevice(5);
    expect(connack.sessionPresent).toBe(true);
    const outcome = h.registry.pushDownlink({ id: 3, deviceIntId: 1, payload: payload("on"), qos: 1 });
    const publish = (await raw.next("publish")) as IPublishPacket;
    expect(publish).toMatchObject({ topic: "inbox", qos: 1, dup: false });
    raw.send({ cmd: "puback", messageId: publish.messageId! });
    await expect(outcome).resolves.toEqual({ status: "DELIVERED" });
    expect(raw.received.map((p) => p.cmd)).toEqual(["connack", "publish"]);
  });

  it.each([4, 5] as const)(
    "answers session present 1 for a stored session without subscriptions (MQTT %i), and restores none",
    async (version) => {
      h = await startHarness();
      storedSession({ present: true, subscriptions: [] });
      const { raw, connack } = await persistentDevice(version);
      expect(connack.sessionPresent).toBe(true);
      // Nothing was restored: a command waits for the device's own SUBSCRIBE, then goes on it.
      const outcome = h.registry.pushDownlink({ id: 9, deviceIntId: 1, payload: payload("later"), qos: 0 });
      raw.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "inbox", qos: 0 }] });
      expect(await raw.next("suback")).toMatchObject({ granted: [0] });
      expect(await raw.next("publish")).toMatchObject({ topic: "inbox", payload: Buffer.from("later") });
      await expect(outcome).resolves.toEqual({ status: "SENT" });
      expect(raw.received.map((p) => p.cmd)).toEqual(["connack", "suback", "publish"]);
    },
  );

  it("gives an unacknowledged QoS 1 command back with its packet identifier, and resends it with it and DUP 1", async () => {
    h = await startHarness();
    storedSession({ present: false, subscriptions: [] });
    const first = await persistentDevice(4);
    first.raw.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "inbox", qos: 1 }] });
    await first.raw.next("suback");
    const sent = h.registry.pushDownlink({ id: 4, deviceIntId: 1, payload: payload("x"), qos: 1 });
    const publish = (await first.raw.next("publish")) as IPublishPacket;
    first.raw.destroy(); // drops before its PUBACK
    const resume = { packetId: publish.messageId!, released: false };
    await expect(sent).resolves.toEqual({ status: "QUEUED", message: "device disconnected before its PUBACK", resume });
    // What the adapter reported of the session, its subscription and then its end, went to the registry's store.
    await vi.waitFor(() =>
      expect(h.registry.events.flatMap((e) => (e.type === "mqttSession" ? [e.report.ended] : []))).toEqual([
        false,
        true,
      ]),
    );

    storedSession({ present: true, subscriptions: [{ topic: "inbox", qos: 1 }] });
    const second = await persistentDevice(4);
    expect(second.connack.sessionPresent).toBe(true);
    const again = h.registry.pushDownlink({ id: 4, deviceIntId: 1, payload: payload("x"), qos: 1, resume });
    const resent = (await second.raw.next("publish")) as IPublishPacket;
    expect(resent).toMatchObject({ messageId: publish.messageId, dup: true, qos: 1 });
    second.raw.send({ cmd: "puback", messageId: resent.messageId! });
    await expect(again).resolves.toEqual({ status: "DELIVERED" });
  });

  it("sends a resumed command as a new message to a session that started clean", async () => {
    h = await startHarness();
    const raw = await rawConnection(h.tcp.port, 4);
    raws.push(raw);
    raw.send(connectPacketOf(DEVICES.a, 4));
    await raw.next("connack");
    raw.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "inbox", qos: 1 }] });
    await raw.next("suback");
    const resume = { packetId: 77, released: false };
    const sent = h.registry.pushDownlink({ id: 5, deviceIntId: 1, payload: payload("y"), qos: 1, resume });
    const publish = (await raw.next("publish")) as IPublishPacket;
    expect(publish.dup).toBe(false);
    expect(publish.messageId).not.toBe(77);
    raw.send({ cmd: "puback", messageId: publish.messageId! });
    await expect(sent).resolves.toEqual({ status: "DELIVERED" });
  });
});
