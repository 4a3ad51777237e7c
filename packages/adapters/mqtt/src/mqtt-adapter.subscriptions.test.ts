import { afterEach, describe, expect, it } from "vitest";
import { DEVICES, closed, nextMessage, sleep, startHarness, type Harness } from "./test-support.js";

let h: Harness;
afterEach(async () => {
  await h.stop();
});

const payload = (s: string) => new Uint8Array(Buffer.from(s));

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
    await sleep(20);
    const got = nextMessage(client);
    await expect(
      h.registry.pushDownlink({ deviceIntId: 1, topic: "ota/fw", payload: payload("v2"), qos: 1 }),
    ).resolves.toEqual({ status: "DELIVERED" });
    expect(await got).toEqual({ topic: "ota/fw", payload: "v2" });
    h.registry.updateSubscriptions(1, []);
    await sleep(20);
    const gone = await h.registry.pushDownlink({ deviceIntId: 1, topic: "ota/fw", payload: payload("v3"), qos: 1 });
    expect(gone).toEqual({ status: "FAILED", message: 'device is not subscribed to "ota/fw"' });
  });

  it("does not send a command right after the update that removed its proxy subscription", async () => {
    h = await startHarness();
    const client = await h.connect(DEVICES.a);
    h.registry.updateSubscriptions(1, [{ topic: "ota/+", qos: 1 }]);
    await sleep(20);
    let received = 0;
    client.on("message", () => received++);
    h.registry.updateSubscriptions(1, []);
    // No pause: the registry sends the next command right behind the update, before aedes has finished unsubscribing.
    const gone = await h.registry.pushDownlink({ deviceIntId: 1, topic: "ota/fw", payload: payload("v3"), qos: 1 });
    expect(gone).toEqual({ status: "FAILED", message: 'device is not subscribed to "ota/fw"' });
    await sleep(50);
    expect(received).toBe(0);
  });

  it("holds a command for a device that subscribes to its topic shortly after connecting", async () => {
    h = await startHarness({ downlinkSubscribeWaitMs: 2_000 });
    const client = await h.connect(DEVICES.a);
    const result = h.registry.pushDownlink({ deviceIntId: 1, payload: payload("queued"), qos: 1 });
    await sleep(100);
    const got = nextMessage(client);
    await client.subscribeAsync("inbox", { qos: 1 });
    expect(await got).toEqual({ topic: "inbox", payload: "queued" });
    await expect(result).resolves.toEqual({ status: "DELIVERED" });
  });

  it("fails a held command once the wait is over", async () => {
    h = await startHarness({ downlinkSubscribeWaitMs: 150 });
    await h.connect(DEVICES.a);
    await expect(h.registry.pushDownlink({ deviceIntId: 1, payload: payload("x") })).resolves.toEqual({
      status: "FAILED",
      message: 'device is not subscribed to "inbox"',
    });
  });

  it("fails a held command at once when the device disconnects before subscribing", async () => {
    h = await startHarness({ downlinkSubscribeWaitMs: 5_000 });
    const client = await h.connect(DEVICES.a);
    const result = h.registry.pushDownlink({ deviceIntId: 1, payload: payload("y") });
    await sleep(50);
    client.end(true);
    await closed(client);
    await expect(result).resolves.toEqual({ status: "FAILED", message: "device disconnected before it subscribed" });
  });
});
