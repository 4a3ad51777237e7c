import { connect as netConnect } from "node:net";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./helpers.js";

let t: TestFleet;
let productID: string;

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["mqtt-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "e2e", cloudProtocol: 1 })).body.productID;
}, 90_000);
afterAll(() => t?.close());

async function newDevice(name: string) {
  const r = await t.api("POST", "/devices", {
    productID,
    deviceName: name,
    deviceType: 1,
    upLinkSystem: 1,
    authType: 1,
  });
  expect(r.status).toBe(201);
  return r.body as { id: number; deviceID: string; deviceUsername: string; token: string };
}

function connectDevice(d: { deviceID: string; deviceUsername: string }, password: string) {
  return mqtt.connectAsync(t.mqttUrl, {
    clientId: d.deviceID,
    username: d.deviceUsername,
    password,
    protocolVersion: 4,
    reconnectPeriod: 0,
    connectTimeout: 5000,
  });
}

describe("an MQTT device end to end", () => {
  it("connects, publishes, is listed over REST, receives a command and acknowledges it", async () => {
    const d = await newDevice("e2e-1");
    const client = await connectDevice(d, d.token);
    try {
      await client.subscribeAsync("inbox", { qos: 1 });
      await client.publishAsync("telemetry/temp", JSON.stringify({ temp: 21.5 }), { qos: 1 });

      // QoS1 PUBACK came after the durable write: the event is already listed.
      const events = await t.api("GET", `/devices/${d.id}/events`);
      expect(events.body.meta.count).toBe(1);
      expect(events.body.items[0]).toMatchObject({
        topic: "telemetry/temp",
        payload: '{"temp":21.5}',
        deviceID: d.deviceID,
        IP: "127.0.0.1",
      });
      expect(events.body.items[0].msgTime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

      // The online state is stored by the connectivity writer's next batch, off the uplink's path.
      await expect
        .poll(async () => (await t.api("GET", `/devices/${d.id}`)).body)
        .toMatchObject({ deviceStatus: 1, clientIP: "127.0.0.1" });
      const health = (await t.api("GET", "/health")).body;
      expect(health.adapters).toContainEqual(expect.objectContaining({ protocol: 1, connectedDevices: 1 }));

      const received = new Promise<{ topic: string; payload: string }>((resolve) =>
        client.once("message", (topic, payload) => resolve({ topic, payload: payload.toString() })),
      );
      const pub = await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: "switch-on" });
      expect(pub.status).toBe(201);
      expect(pub.body.publishStatus).toBe("1");
      expect(await received).toEqual({ topic: "inbox", payload: "switch-on" });
      await expect
        .poll(async () => (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items[0]?.publishStatus, {
          timeout: 5000,
        })
        .toBe(2);
    } finally {
      await client.endAsync();
    }
    await expect
      .poll(async () => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus, { timeout: 5000 })
      .toBe(0);
    const statuses = (await t.api("GET", `/devices/${d.id}/connect_logs`)).body.items.map(
      (l: { connectStatus: number }) => l.connectStatus,
    );
    expect(statuses).toEqual([0, 1]);
    const all = (await t.api("GET", "/device_connect_logs?deviceID_like=" + d.deviceID)).body;
    expect(all.meta.count).toBe(2);
  });

  it("refuses a wrong token with CONNACK 5 and records connect log status 2", async () => {
    const d = await newDevice("e2e-wrong");
    const err = await connectDevice(d, "not-the-token").then(
      (c) => {
        c.end(true);
        return null;
      },
      (e: Error & { code?: number }) => e,
    );
    expect(err?.code).toBe(5);
    const logs = (await t.api("GET", `/devices/${d.id}/connect_logs`)).body.items;
    expect(logs[0]).toMatchObject({ connectStatus: 2, connectStatusLabel: "Authentication failed", IP: "127.0.0.1" });
    expect((await t.api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(0);
  });

  it("closes only the socket that sent a malformed packet; other devices keep working", async () => {
    const d = await newDevice("e2e-survivor");
    const good = await connectDevice(d, d.token);
    try {
      const url = new URL(t.mqttUrl);
      const closed = await new Promise<boolean>((resolve) => {
        const raw = netConnect(Number(url.port), url.hostname, () => {
          // CONNECT with a remaining length that runs past the packet, then garbage.
          raw.write(Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00, 0x04, 0x4d]));
          raw.write(Buffer.alloc(64, 0xee));
        });
        raw.on("close", () => resolve(true));
        raw.on("error", () => {});
        setTimeout(() => resolve(false), 5000);
      });
      expect(closed).toBe(true);
      await good.publishAsync("still/alive", "yes", { qos: 1 });
      const events = (await t.api("GET", `/devices/${d.id}/events`)).body;
      expect(events.items[0]).toMatchObject({ topic: "still/alive", payload: "yes" });
      expect((await t.api("GET", "/health")).status).toBe(200);
    } finally {
      await good.endAsync();
    }
  });
});
