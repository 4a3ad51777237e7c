import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/**
 * Changes made through the REST API reach devices that are connected right
 * now, over real processes and a real MQTT client: revocations close the
 * connection within a second, policy and proxy-subscription changes apply to
 * the live session within a second, without reconnecting. Every case runs
 * over TCP, TLS and WebSocket; the certificate cases over mutual TLS.
 */
let t: TestFleet;
let productID: string;
/** The service CA, which signed the TLS listeners' certificate. */
let ca: string;
let n = 0;

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["mqtt-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "live", cloudProtocol: 1 })).body.productID;
  ca = (await t.api("POST", "/certs", { name: "ca-source", enable: 1 })).body.root.content;
}, 90_000);
afterAll(() => t?.close());

type Device = TestDevice;
const newDevice = () => t.newDevice(productID, `live-${n++}`);

/** How a test reaches the adapter: each listener a token device may use. */
const transports: Array<{ name: string; url: () => string; options: () => IClientOptions }> = [
  { name: "TCP", url: () => t.mqttUrl, options: () => ({}) },
  { name: "TLS", url: () => t.mqttsUrl, options: () => ({ ca }) },
  { name: "WebSocket", url: () => t.wsUrl, options: () => ({}) },
];
let transport = transports[0]!;

const base: IClientOptions = { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000 };

const connectOnly = (d: Device) =>
  mqtt.connectAsync(transport.url(), {
    ...base,
    ...transport.options(),
    clientId: d.deviceID,
    username: d.deviceUsername,
    password: d.token,
  });

/** Connects and waits until the registry lists the device online (CONNACK comes first). */
async function connect(d: Device): Promise<MqttClient> {
  const client = await connectOnly(d);
  await expect.poll(async () => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
  return client;
}

/**
 * The API answers once the change is stored and pushed onto the adapter's
 * stream; the device's next packet travels another way and may overtake the
 * push. The promise is "within one second", so that is what the tests wait.
 */
const withinOneSecond = () => quietFor(1000, "a live change reaches the adapter within one second");

/** Milliseconds from now until the client's connection closes (rejects after 5 s). */
function closesWithin(client: MqttClient): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("connection still open after 5 s")), 5000);
    client.once("close", () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

const events = async (d: Device) =>
  (await t.api("GET", `/devices/${d.id}/events`)).body.items.map((e: { topic: string }) => e.topic);

describe.each(transports)("over $name", (tr) => {
  beforeAll(() => {
    transport = tr;
  });

  describe("revocation closes a live MQTT session within one second", () => {
    const cases: Array<[string, (d: Device) => Promise<unknown>, string]> = [
      ["blocking the device", (d) => t.api("PUT", `/devices/${d.id}`, { blocked: 1 }), "device blocked"],
      [
        "changing its token",
        (d) => t.api("PUT", `/devices/${d.id}`, { token: `new-token-${d.id}-0123456789` }),
        "token changed",
      ],
      ["deleting it", (d) => t.api("DELETE", `/devices?ids=${d.id}`), "device deleted"],
    ];
    // Revoked right after CONNACK: the registry may not have seen the SessionOpened yet, and must still close it.
    it.each(cases)("%s", async (_what, revoke, reason) => {
      const d = await newDevice();
      const client = await connectOnly(d);
      const closed = closesWithin(client);
      await revoke(d);
      expect(await closed).toBeLessThan(1000);
      if (reason !== "device deleted") {
        await expect
          .poll(async () => (await t.api("GET", `/devices/${d.id}/connect_logs`)).body.items[0]?.connectStatus)
          .toBe(0);
        // Old credentials no longer work.
        await expect(connectOnly(d)).rejects.toMatchObject({ code: expect.any(Number) });
      }
    });
  });

  describe("policy changes apply to a live session within one second", () => {
    it("drops publishes a newly bound deny policy forbids, keeps the connection, and lets them through once unbound", async () => {
      const d = await newDevice();
      const client = await connect(d);
      try {
        await client.publishAsync("secret/a", "before", { qos: 1 });
        const p = (await t.api("POST", "/policies", { name: `deny-${d.id}`, topic: "secret/#", access: 3, allow: 0 }))
          .body;
        expect((await t.api("POST", `/devices/${d.id}/policies`, { ids: [p.id] })).status).toBe(201);
        await withinOneSecond();
        await client.publishAsync("secret/b", "denied", { qos: 1 });
        await client.publishAsync("open/c", "allowed", { qos: 1 });
        expect(await events(d)).toEqual(["open/c", "secret/a"]);
        const refusal = await client.subscribeAsync("secret/#", { qos: 1 }).then(
          () => undefined,
          (err: { packet?: { granted: number[] } }) => err,
        );
        expect(refusal?.packet?.granted).toEqual([128]);
        expect(client.connected).toBe(true);

        await t.api("DELETE", `/devices/${d.id}/policies?ids=${p.id}`);
        await withinOneSecond();
        await client.publishAsync("secret/d", "allowed again", { qos: 1 });
        expect(await events(d)).toEqual(["secret/d", "open/c", "secret/a"]);
      } finally {
        await client.endAsync();
      }
    });

    it("applies an edited policy to every live device bound to it", async () => {
      const d = await newDevice();
      const p = (await t.api("POST", "/policies", { name: `edit-${d.id}`, topic: "a/#", access: 1, allow: 0 })).body;
      await t.api("POST", `/policies/${p.id}/devices`, { devicesIntID: [d.id] });
      const client = await connect(d);
      try {
        await client.publishAsync("a/1", "denied", { qos: 1 });
        await client.publishAsync("b/1", "allowed", { qos: 1 });
        expect((await t.api("PUT", `/policies/${p.id}`, { topic: "b/#" })).status).toBe(200);
        await withinOneSecond();
        await client.publishAsync("a/2", "allowed now", { qos: 1 });
        await client.publishAsync("b/2", "denied now", { qos: 1 });
        expect(await events(d)).toEqual(["a/2", "b/1"]);
      } finally {
        await client.endAsync();
      }
    });
  });

  describe("proxy subscriptions", () => {
    const messages = (client: MqttClient) => {
      const got: string[] = [];
      client.on("message", (topic, payload) => got.push(`${topic} ${payload.toString()}`));
      return got;
    };

    it("subscribes the device on connect, so a command on that topic arrives without its own SUBSCRIBE", async () => {
      const d = await newDevice();
      expect((await t.api("POST", `/devices/${d.id}/subscriptions`, { topic: "config/#", qos: 1 })).status).toBe(201);
      const client = await connect(d);
      try {
        const got = messages(client);
        expect(
          (await t.api("POST", "/device_publish", { deviceID: d.deviceID, topic: "config/rate", payload: "10" })).body
            .publishStatus,
        ).toBe("1");
        await expect.poll(() => got, { timeout: 3000 }).toEqual(["config/rate 10"]);
        await expect
          .poll(async () => (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items[0]?.publishStatus, {
            timeout: 3000,
          })
          .toBe(2);
      } finally {
        await client.endAsync();
      }
    });

    it("subscribes a live device at once when one is added, and unsubscribes it when removed", async () => {
      const d = await newDevice();
      const client = await connect(d);
      try {
        const got = messages(client);
        const added = Date.now();
        const sub = (await t.api("POST", `/devices/${d.id}/subscriptions`, { topic: "ota/+", qos: 1 })).body;
        await t.api("POST", "/device_publish", { deviceID: d.deviceID, topic: "ota/fw", payload: "v2" });
        await expect.poll(() => got, { timeout: 3000 }).toEqual(["ota/fw v2"]);
        expect(Date.now() - added).toBeLessThan(1000);

        await t.api("DELETE", `/devices/${d.id}/subscriptions?ids=${sub.id}`);
        const pub = await t.api("POST", "/device_publish", {
          deviceID: d.deviceID,
          topic: "ota/fw",
          payload: "v3",
          qos: 0,
        });
        expect(pub.status).toBe(201);
        await quietFor(300, "a QoS 0 command to the removed subscription would come within this");
        expect(got).toEqual(["ota/fw v2"]);
        expect(client.connected).toBe(true);
      } finally {
        await client.endAsync();
      }
    });
  });
});

describe("a certificate device over mutual TLS", () => {
  async function certDevice() {
    const c = (await t.api("POST", "/certs", { name: `live-cert-${n++}`, enable: 1 })).body;
    const device = await t.newDevice(productID, `live-cert-dev-${n++}`, { authType: 2, certs: [c.id] });
    const client = await mqtt.connectAsync(t.mqttssUrl, {
      ...base,
      ca,
      cert: c.cert.content,
      key: c.key.content,
      clientId: device.deviceID,
    });
    return { cert: c as { id: number }, device, client };
  }

  it("is disconnected within one second when its certificate is disabled (its connect log says offline)", async () => {
    const { cert, device, client } = await certDevice();
    const closed = closesWithin(client);
    expect((await t.api("PUT", `/certs/${cert.id}`, { enable: 0 })).status).toBe(200);
    expect(await closed).toBeLessThan(1000);
    await expect
      .poll(async () => (await t.api("GET", `/devices/${device.id}/connect_logs`)).body.items[0]?.connectStatus)
      .toBe(0);
  });

  it("is disconnected within one second when it is blocked", async () => {
    const { device, client } = await certDevice();
    const closed = closesWithin(client);
    await t.api("PUT", `/devices/${device.id}`, { blocked: 1 });
    expect(await closed).toBeLessThan(1000);
  });
});
