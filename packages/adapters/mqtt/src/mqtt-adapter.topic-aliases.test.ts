import type { IPublishPacket, Packet } from "mqtt-packet";
import { afterEach, describe, expect, it, vi } from "vitest";
import { OUTBOUND_TOPIC_ALIASES, OutboundTopicAliases } from "./topic-aliases.js";
import { DEVICES, connectPacketOf, rawConnection, startHarness, type Harness } from "./test-support.js";

let h: Harness;
const raws: { destroy(): void }[] = [];
afterEach(async () => {
  for (const r of raws.splice(0)) r.destroy();
  await h.stop();
});

const payload = (s: string) => new Uint8Array(Buffer.from(s));
const publishes = (packets: Packet[]) => packets.filter((p): p is IPublishPacket => p.cmd === "publish");

/** A raw connection of DEVICES.a at `protocolVersion`, CONNECT `extra`, subscribed to `topics` at QoS 1. */
async function subscribedDevice(protocolVersion: 4 | 5, extra: object, topics = ["inbox"]) {
  const raw = await rawConnection(h.tcp.port, protocolVersion);
  raws.push(raw);
  raw.send(connectPacketOf(DEVICES.a, protocolVersion, extra));
  await raw.next("connack");
  raw.send({ cmd: "subscribe", messageId: 1, subscriptions: topics.map((topic) => ({ topic, qos: 1 as const })) });
  await raw.next("suback");
  // Every QoS 1 command is acknowledged, so the next one has room to go.
  const acked = new Set<number>();
  const ack = setInterval(() => {
    for (const p of publishes(raw.received))
      if (p.messageId !== undefined && !acked.has(p.messageId)) {
        acked.add(p.messageId);
        raw.send({ cmd: "puback", messageId: p.messageId });
      }
  }, 5);
  raws.push({ destroy: () => clearInterval(ack) });
  return raw;
}

/** Sends the commands to DEVICES.a one after another (QoS 0 or 1), each once the previous one settled. */
async function command(texts: string[], qos: 0 | 1 = 1, topic = "inbox") {
  for (const text of texts)
    expect(await h.registry.pushDownlink({ deviceIntId: 1, topic, payload: payload(text), qos })).toMatchObject({
      status: qos === 0 ? "SENT" : "DELIVERED",
    });
}

describe("MQTT adapter: topic aliases on commands (MQTT 5.0 §3.3.2.3.4)", () => {
  it("gives the first command on a topic its name and an alias, and later ones the alias with an empty name", async () => {
    h = await startHarness();
    const raw = await subscribedDevice(5, { properties: { topicAliasMaximum: 4 } });
    await command(["one", "two"]);
    await command(["three"], 0);
    const [first, second, third] = publishes(raw.received);
    expect(first).toMatchObject({ topic: "inbox", properties: { topicAlias: 1 } });
    expect(second).toMatchObject({ topic: "", properties: { topicAlias: 1 } });
    expect(third).toMatchObject({ topic: "", qos: 0, properties: { topicAlias: 1 } });
    expect([first, second, third].map((p) => p!.payload.toString())).toEqual(["one", "two", "three"]);
  });

  it("never sends an empty name before the alias's name was written, commands issued at once keeping their properties", async () => {
    h = await startHarness();
    const raw = await subscribedDevice(5, { properties: { topicAliasMaximum: 4 } });
    const expiresAtMs = Date.now() + 60_000;
    const texts = ["a", "b", "c", "d"];
    await Promise.all(
      texts.map((text) =>
        h.registry.pushDownlink({ deviceIntId: 1, topic: "inbox", payload: payload(text), qos: 0, expiresAtMs }),
      ),
    );
    await command(["e"], 0);
    const sent = publishes(raw.received);
    expect(sent.map((p) => p.payload.toString()).sort()).toEqual([...texts, "e"]);
    expect(sent[0]).toMatchObject({ topic: "inbox", properties: { topicAlias: 1 } });
    for (const p of sent) expect(p.topic === "inbox" || p.topic === "").toBe(true);
    expect(sent.every((p) => p.properties?.topicAlias === 1)).toBe(true);
    expect(sent.slice(0, 4).every((p) => (p.properties?.messageExpiryInterval ?? 0) >= 59)).toBe(true);
    expect(sent.at(-1)).toMatchObject({ topic: "", properties: { topicAlias: 1 } });
  });

  it("gives each topic its own alias, up to the device's Topic Alias Maximum, and full names past it", async () => {
    h = await startHarness();
    const raw = await subscribedDevice(5, { properties: { topicAliasMaximum: 2 } }, ["t/#"]);
    for (const topic of ["t/1", "t/2", "t/3", "t/1", "t/3", "t/2"]) await command([topic], 1, topic);
    expect(publishes(raw.received).map((p) => [p.topic, p.properties?.topicAlias])).toEqual([
      ["t/1", 1],
      ["t/2", 2],
      ["t/3", undefined],
      ["", 1],
      ["t/3", undefined],
      ["", 2],
    ]);
  });

  it("sends full names and no alias to a v5 device without Topic Alias Maximum, and to a v3.1.1 device", async () => {
    h = await startHarness();
    for (const version of [5, 4] as const) {
      const raw = await subscribedDevice(version, {});
      await command(["a", "b"]);
      expect(publishes(raw.received).map((p) => [p.topic, p.properties?.topicAlias])).toEqual([
        ["inbox", undefined],
        ["inbox", undefined],
      ]);
      raw.destroy();
      await vi.waitFor(() => expect(h.adapter.stats.clients).toBe(0));
    }
  });

  it("starts a new connection with no aliases: its first command carries the topic name again", async () => {
    h = await startHarness();
    const first = await subscribedDevice(5, { properties: { topicAliasMaximum: 4 } });
    await command(["a", "b"]);
    first.destroy();
    await vi.waitFor(() => expect(h.adapter.stats.clients).toBe(0));
    const second = await subscribedDevice(5, { properties: { topicAliasMaximum: 4 } });
    await command(["c"]);
    expect(publishes(second.received)[0]).toMatchObject({ topic: "inbox", properties: { topicAlias: 1 } });
  });

  it("sends a retained message at SUBSCRIBE by its full name without alias, commands keeping theirs", async () => {
    h = await startHarness();
    const raw = await subscribedDevice(5, { properties: { topicAliasMaximum: 4 } });
    await command(["a", "b"]);
    h.registry.updateRetained(DEVICES.a.deviceIntId, [{ topic: "inbox", payload: Buffer.from("kept"), qos: 1 }]);
    raw.send({ cmd: "subscribe", messageId: 2, subscriptions: [{ topic: "inbox", qos: 1 }] });
    await vi.waitFor(() => expect(publishes(raw.received)).toHaveLength(3));
    expect(publishes(raw.received)[2]).toMatchObject({ topic: "inbox", retain: true });
    expect(publishes(raw.received)[2]!.properties?.topicAlias).toBeUndefined();
    await command(["c"]);
    expect(publishes(raw.received)[3]).toMatchObject({ topic: "", properties: { topicAlias: 1 } });
  });
});

describe("OutboundTopicAliases", () => {
  it("repeats the full name with the alias until the first PUBLISH on the topic was written", () => {
    const aliases = new OutboundTopicAliases(4);
    expect(aliases.use("x")).toEqual({ alias: 1, named: true });
    expect(aliases.use("x")).toEqual({ alias: 1, named: true });
    aliases.written("x");
    expect(aliases.use("x")).toEqual({ alias: 1, named: false });
  });

  it(`assigns at most ${OUTBOUND_TOPIC_ALIASES} aliases whatever the device allows`, () => {
    const aliases = new OutboundTopicAliases(65535);
    const used = Array.from({ length: OUTBOUND_TOPIC_ALIASES + 1 }, (_, k) => aliases.use(`t${k}`));
    expect(used.at(-2)).toEqual({ alias: OUTBOUND_TOPIC_ALIASES, named: true });
    expect(used.at(-1)).toBeUndefined();
  });
});
