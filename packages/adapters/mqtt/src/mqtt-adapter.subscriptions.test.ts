import mqtt, { type MqttClient } from "mqtt";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEVICES, closed, nextMessage, startHarness, type Harness } from "./test-support.js";

let h: Harness;
afterEach(async () => {
  await h.stop();
});

const payload = (s: string) => new Uint8Array(Buffer.from(s));
/** A QoS 1 command that expires 150 ms from now. */
const soon = () => ({ qos: 1, expiresAtMs: Date.now() + 150 });

describe("MQTT adapter: proxy subscriptions and waiting for a subscription", () => {
  it("subscribes a device to its proxy subscriptions on connect, except those its policies deny", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.proxied);
    const got = nextMessage(client);
    await expect(
      h.registry.pushDownlink({ deviceIntId: 6, topic: "config/interval", payload: payload("60"), qos: 1 }),
    ).resolves.toEqual({ status: "DELIVERED" });
    expect(await got).toEqual({ topic: "config/interval", payload: "60" });
    const denied = await h.registry.pushDownlink({
      deviceIntId: 6,
      topic: "secret/keys",
      payload: payload("k"),
      qos: 1,
    });
    expect(denied).toMatchObject({ status: "FAILED" });
  });

  it("subscribes and unsubscribes a live device at once when its proxy subscriptions change", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.a);
    h.registry.updateSubscriptions(1, [{ topic: "ota/+", qos: 1 }]);
    const got = nextMessage(client);
    await expect(
      h.registry.pushDownlink({ deviceIntId: 1, topic: "ota/fw", payload: payload("v2"), qos: 1 }),
    ).resolves.toEqual({ status: "DELIVERED" });
    expect(await got).toEqual({ topic: "ota/fw", payload: "v2" });
    h.registry.updateSubscriptions(1, []);
    let received = 0;
    client.on("message", () => received++);
    const gone = await h.registry.pushDownlink({ ...soon(), deviceIntId: 1, topic: "ota/fw", payload: payload("v3") });
    expect(gone).toEqual({ status: "QUEUED", message: 'expired before the device subscribed to "ota/fw"' });
    expect(received).toBe(0);
  });

  it("does not send a command right after the update that removed its proxy subscription", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.a);
    h.registry.updateSubscriptions(1, [{ topic: "ota/+", qos: 1 }]);
    // A command without expiry is held until the subscription is in place: its delivery says it is.
    const ready = nextMessage(client);
    await h.registry.pushDownlink({ deviceIntId: 1, topic: "ota/ready", payload: payload("r"), qos: 1 });
    await ready;
    await client.subscribeAsync("inbox", { qos: 1 });
    const seen: string[] = [];
    client.on("message", (topic) => seen.push(topic));
    h.registry.updateSubscriptions(1, []);
    // No pause: the registry sends the next command right behind the update, before aedes has finished unsubscribing.
    const gone = await h.registry.pushDownlink({ ...soon(), deviceIntId: 1, topic: "ota/fw", payload: payload("v3") });
    expect(gone).toEqual({ status: "QUEUED", message: 'expired before the device subscribed to "ota/fw"' });
    // Commands reach the connection in order: one sent after all the same would come before this one.
    await h.registry.pushDownlink({ deviceIntId: 1, topic: "inbox", payload: payload("after"), qos: 1 });
    await vi.waitFor(() => expect(seen).toEqual(["inbox"]));
  });

  it("holds commands until the device subscribes to their topic, then sends them in the order they came", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.a);
    const results = ["first", "second", "third"].map((p, i) =>
      h.registry.pushDownlink({ id: i + 1, deviceIntId: 1, payload: payload(p), qos: 1 }),
    );
    const got: string[] = [];
    const all = new Promise<void>((resolve) =>
      client.on("message", (_topic, p) => got.push(p.toString()) === 3 && resolve()),
    );
    await client.subscribeAsync("inbox", { qos: 1 });
    await all;
    expect(got).toEqual(["first", "second", "third"]);
    expect(await Promise.all(results)).toEqual([
      { status: "DELIVERED" },
      { status: "DELIVERED" },
      { status: "DELIVERED" },
    ]);
  });

  it("sends a held command once a proxy subscription added later matches its topic", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.a);
    const got = nextMessage(client);
    const result = h.registry.pushDownlink({ deviceIntId: 1, topic: "ota/fw", payload: payload("v4"), qos: 1 });
    h.registry.updateSubscriptions(1, [{ topic: "ota/+", qos: 1 }]);
    expect(await got).toEqual({ topic: "ota/fw", payload: "v4" });
    await expect(result).resolves.toEqual({ status: "DELIVERED" });
  });

  it("gives a held command back to the registry's queue (QUEUED), unsent, when it expires before a subscription", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.a);
    await expect(h.registry.pushDownlink({ ...soon(), deviceIntId: 1, payload: payload("x") })).resolves.toEqual({
      status: "QUEUED",
      message: 'expired before the device subscribed to "inbox"',
    });
    const seen: string[] = [];
    client.on("message", (_topic, body) => seen.push(body.toString()));
    await client.subscribeAsync("inbox", { qos: 1 });
    // Commands reach the connection in order: the expired one, sent all the same, would come before this one.
    await h.registry.pushDownlink({ deviceIntId: 1, payload: payload("after"), qos: 1 });
    await vi.waitFor(() => expect(seen).toEqual(["after"]));
  });

  it("gives a held command back to the registry's queue (QUEUED) at once when the device disconnects first", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.a);
    const result = h.registry.pushDownlink({ deviceIntId: 1, payload: payload("y") });
    client.end(true);
    await closed(client);
    await expect(result).resolves.toEqual({ status: "QUEUED", message: "device disconnected before it subscribed" });
  });

  it("reports a clean session 0 connection's subscriptions and end to the registry's store, keeping nothing itself", async () => {
    h = await startHarness();
    /** Connects as device a asking for a persistent session; answers the client and its CONNACK's session present. */
    const persistent = () =>
      new Promise<[MqttClient, boolean]>((resolve, reject) => {
        const { deviceId: clientId, username, token: password } = DEVICES.a;
        const client = mqtt.connect(h.url, { clientId, username, password, clean: false, reconnectPeriod: 0 });
        client.once("connect", (connack) => resolve([client, connack.sessionPresent]));
        client.once("error", reject);
      });
    const reports = () => h.registry.events.flatMap((e) => (e.type === "mqttSession" ? [e.report] : []));
    const [first, firstPresent] = await persistent();
    expect(firstPresent).toBe(false);
    await first.subscribeAsync("inbox", { qos: 1 });
    const inbox = [{ topic: "inbox", qos: 1 }];
    expect(reports()).toEqual([
      { clientId: DEVICES.a.deviceId, subscriptions: inbox, expiryInterval: 0xffffffff, ended: false },
    ]);
    first.end(true);
    await closed(first);
    await vi.waitFor(() => expect(reports().at(-1)).toMatchObject({ subscriptions: inbox, ended: true }));
    // The fake registry stores no session: the adapter restores only what the registry answers, nothing of its own.
    const [again, present] = await persistent();
    expect(present).toBe(false);
    await expect(h.registry.pushDownlink({ ...soon(), deviceIntId: 1, payload: payload("z") })).resolves.toEqual({
      status: "QUEUED",
      message: 'expired before the device subscribed to "inbox"',
    });
    again.end(true);
  });
});
