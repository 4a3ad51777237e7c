import mqtt from "mqtt";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reachable } from "../scripts/fleet.js";
import { startTestFleet, type TestFleet } from "./helpers.js";

interface Creds {
  id: number;
  deviceID: string;
  deviceUsername: string;
  token: string;
}

/** A connected device that keeps every message it receives, in order; subscribed to `topic` unless it is null. */
async function connect(t: TestFleet, d: Creds, topic: string | null = "inbox") {
  const client = await mqtt.connectAsync(t.mqttUrl, {
    clientId: d.deviceID,
    username: d.deviceUsername,
    password: d.token,
    protocolVersion: 4,
    reconnectPeriod: 0,
    connectTimeout: 5000,
  });
  const received: Array<{ topic: string; payload: string; qos: number }> = [];
  client.on("message", (topic, payload, packet) =>
    received.push({ topic, payload: payload.toString(), qos: packet.qos }),
  );
  if (topic !== null) await client.subscribeAsync(topic, { qos: 1 });
  return { client, received };
}

async function newDevice(
  t: TestFleet,
  productID: string,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<Creds> {
  const r = await t.api("POST", "/devices", {
    productID,
    deviceName: name,
    deviceID: name,
    deviceType: 1,
    upLinkSystem: 1,
    authType: 1,
    ...extra,
  });
  expect(r.status).toBe(201);
  return r.body;
}

const lastLog = async (t: TestFleet, deviceIntId: number) =>
  (await t.api("GET", `/devices/${deviceIntId}/control_logs`)).body.items[0];

/** The device's control logs as [payload, publishStatus], oldest first. */
const logsOf = async (t: TestFleet, deviceIntId: number) =>
  (await t.api("GET", `/devices/${deviceIntId}/control_logs`)).body.items
    .map((l: { payload: string; publishStatus: number }) => [l.payload, l.publishStatus])
    .reverse();

/** How many commands the central node has handed to adapters (iot_commands_total{outcome="downlinked"}). */
async function downlinked(t: TestFleet): Promise<number> {
  const text = await (await fetch(`${reachable(t.fleet.central.urls.api!)}/metrics`)).text();
  return Number(/^iot_commands_total\{outcome="downlinked"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

describe("commands over MQTT (command TTL one hour)", () => {
  let t: TestFleet;
  let productID: string;
  beforeAll(async () => {
    t = await startTestFleet({}, { adapters: ["mqtt-adapter"] });
    productID = (await t.api("POST", "/products", { productName: "cmd", cloudProtocol: 1 })).body.productID;
  }, 90_000);
  afterAll(() => t?.close());

  it("queues commands for an offline device and delivers them in order when it connects; its PUBACK makes the log 2", async () => {
    const d = await newDevice(t, productID, "away-1");
    const first = await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: "first" });
    const second = await t.api("POST", "/device_publish", {
      deviceID: d.deviceID,
      topic: "config/rate",
      payload: "second",
    });
    expect([first.status, first.body.publishStatus, second.body.publishStatus]).toEqual([201, "1", "1"]);
    expect(await lastLog(t, d.id)).toMatchObject({ payload: "second", publishStatus: 1 });

    const dev = await connect(t, d, "#");
    try {
      await expect.poll(() => dev.received.length, { timeout: 10_000 }).toBe(2);
      expect(dev.received).toEqual([
        { topic: "inbox", payload: "first", qos: 1 },
        { topic: "config/rate", payload: "second", qos: 1 },
      ]);
      await expect
        .poll(
          async () =>
            (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items.map(
              (l: { publishStatus: number }) => l.publishStatus,
            ),
          { timeout: 5000 },
        )
        .toEqual([2, 2]);
    } finally {
      await dev.client.endAsync();
    }
  });

  it("keeps queued commands for a device that leaves and comes back before subscribing, and subscribes over 5 s late", async () => {
    const d = await newDevice(t, productID, "slow-sub-1");
    for (const payload of ["one", "two"])
      expect((await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload })).body.publishStatus).toBe("1");
    // It connects, gets both commands held for it by the adapter, and leaves without subscribing: they stay queued.
    const before = await downlinked(t);
    const first = await connect(t, d, null);
    await expect.poll(() => downlinked(t), { timeout: 10_000 }).toBe(before + 2);
    await first.client.endAsync();
    // Back again: both go to the adapter again, and the device takes its time to subscribe.
    const dev = await connect(t, d, null);
    try {
      await expect.poll(() => downlinked(t), { timeout: 10_000 }).toBe(before + 4);
      // The scenario itself, not a synchronisation: longer than the 5 s the adapter once waited before failing them.
      await quietFor(5_500, "longer than the 5 s the adapter once waited before failing them");
      expect(await logsOf(t, d.id)).toEqual([
        ["one", 1],
        ["two", 1],
      ]);
      await dev.client.subscribeAsync("inbox", { qos: 1 });
      await expect.poll(() => dev.received.length, { timeout: 10_000 }).toBe(2);
      expect(dev.received).toEqual([
        { topic: "inbox", payload: "one", qos: 1 },
        { topic: "inbox", payload: "two", qos: 1 },
      ]);
      await expect
        .poll(() => logsOf(t, d.id), { timeout: 5000 })
        .toEqual([
          ["one", 2],
          ["two", 2],
        ]);
    } finally {
      await dev.client.endAsync();
    }
  }, 30_000);

  it("delivers a queued command for a device behind a gateway when the gateway connects", async () => {
    const gw = (await t.api("POST", "/gateways", { productID, gatewayName: "gw-q", gatewayProtocol: 1, authType: 1 }))
      .body;
    const child = await newDevice(t, productID, "behind-1", { upLinkSystem: 2, gateway: gw.id });
    expect(
      (await t.api("POST", "/device_publish", { deviceID: child.deviceID, payload: "calibrate" })).body.publishStatus,
    ).toBe("1");
    const g = await connect(t, gw, "devices/+/inbox");
    try {
      await expect
        .poll(() => g.received, { timeout: 10_000 })
        .toEqual([{ topic: `devices/${child.deviceID}/inbox`, payload: "calibrate", qos: 1 }]);
      await expect.poll(async () => (await lastLog(t, child.id)).publishStatus, { timeout: 5000 }).toBe(2);
    } finally {
      await g.client.endAsync();
    }
  });

  describe("group_publish", () => {
    async function newGroup(name: string, members: Creds[]) {
      const group = (await t.api("POST", "/groups", { productID, groupName: name, description: "e2e" })).body;
      expect(
        (await t.api("POST", `/groups/${group.id}/devices`, { ids: members.map((m) => m.id) })).status,
      ).toBeLessThan(300);
      return group as { id: number; groupID: string };
    }

    it("with needAck 0 reaches every connected member at QoS 0, logs 3 for them and 0 for the member away", async () => {
      const members = [
        await newDevice(t, productID, "bc-1"),
        await newDevice(t, productID, "bc-2"),
        await newDevice(t, productID, "bc-away"),
      ];
      const group = await newGroup("broadcast", members);
      const online = [await connect(t, members[0]!), await connect(t, members[1]!)];
      try {
        const r = await t.api("POST", "/group_publish", {
          groupID: group.groupID,
          groupIntID: group.id,
          payload: "lights-off",
          needAck: 0,
        });
        expect(r.status).toBe(201);
        expect(r.body.statusUrl).toMatch(/^\/task_status\/[0-9a-f-]{36}$/);
        for (const o of online)
          await expect
            .poll(() => o.received, { timeout: 10_000 })
            .toEqual([{ topic: "inbox", payload: "lights-off", qos: 0 }]);
        await expect
          .poll(async () => (await t.api("GET", r.body.statusUrl)).body, { timeout: 5000 })
          .toMatchObject({
            status: 4,
            progress: 100,
            message: "1 of 3 devices failed",
            result: { total: 3, success: 2, failed: 1, pending: 0 },
          });
        expect([
          (await lastLog(t, members[0]!.id)).publishStatus,
          (await lastLog(t, members[1]!.id)).publishStatus,
          (await lastLog(t, members[2]!.id)).publishStatus,
        ]).toEqual([3, 3, 0]);
        expect((await t.api("GET", `/groups/${group.id}/control_logs`)).body.items).toEqual([
          expect.objectContaining({ groupID: group.groupID, payload: "lights-off", publishStatus: 0 }),
        ]);
      } finally {
        for (const o of online) await o.client.endAsync();
      }
    });

    it("with needAck 1 tracks each member: acknowledged ones are 2, the one away is queued until it connects, then the task succeeds", async () => {
      const members = [
        await newDevice(t, productID, "ack-1"),
        await newDevice(t, productID, "ack-2"),
        await newDevice(t, productID, "ack-away"),
      ];
      const group = await newGroup("acked", members);
      const online = [await connect(t, members[0]!), await connect(t, members[1]!)];
      try {
        const r = await t.api("POST", "/group_publish", { groupID: group.groupID, payload: "reboot", needAck: 1 });
        expect(r.status).toBe(201);
        for (const o of online)
          await expect
            .poll(() => o.received, { timeout: 10_000 })
            .toEqual([{ topic: "inbox", payload: "reboot", qos: 1 }]);
        await expect
          .poll(async () => (await t.api("GET", r.body.statusUrl)).body, { timeout: 5000 })
          .toMatchObject({
            status: 2,
            progress: 66,
            message: "waiting for 1 of 3 devices",
            result: { total: 3, success: 2, failed: 0, pending: 1 },
          });
        expect([
          (await lastLog(t, members[0]!.id)).publishStatus,
          (await lastLog(t, members[1]!.id)).publishStatus,
          (await lastLog(t, members[2]!.id)).publishStatus,
        ]).toEqual([2, 2, 1]);

        const late = await connect(t, members[2]!);
        online.push(late);
        await expect
          .poll(() => late.received, { timeout: 10_000 })
          .toEqual([{ topic: "inbox", payload: "reboot", qos: 1 }]);
        await expect
          .poll(async () => (await t.api("GET", r.body.statusUrl)).body, { timeout: 5000 })
          .toMatchObject({
            status: 3,
            progress: 100,
            message: "all 3 devices reached",
            result: { total: 3, success: 3, failed: 0, pending: 0 },
          });
        expect((await t.api("GET", `/groups/${group.id}/control_logs`)).body.items[0]).toMatchObject({
          payload: "reboot",
          publishStatus: 2,
        });
      } finally {
        for (const o of online) await o.client.endAsync();
      }
    });
  });
});

describe("commands over MQTT (command TTL two seconds)", () => {
  let t: TestFleet;
  let productID: string;
  beforeAll(async () => {
    t = await startTestFleet({ IOT_COMMAND_TTL: "2" }, { adapters: ["mqtt-adapter"] });
    productID = (await t.api("POST", "/products", { productName: "ttl", cloudProtocol: 1 })).body.productID;
  }, 90_000);
  afterAll(() => t?.close());

  it("fails a command whose TTL ran out while the device was away, without waiting for it, and never delivers it", async () => {
    const d = await newDevice(t, productID, "gone-1");
    const r = await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: "too-late" });
    expect(r.body.publishStatus).toBe("1");
    await expect.poll(async () => (await lastLog(t, d.id)).publishStatus, { timeout: 10_000 }).toBe(0);

    const dev = await connect(t, d);
    try {
      // A queued command would go out when the session opens, before this one: the first message is the fresh command.
      expect(
        (await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: "fresh" })).body.publishStatus,
      ).toBe("1");
      await expect.poll(() => dev.received.length, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(dev.received.map((m) => m.payload)).toEqual(["fresh"]);
      await expect.poll(async () => (await lastLog(t, d.id)).publishStatus, { timeout: 5000 }).toBe(2);
      const logs = (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items;
      expect(logs.map((l: { payload: string; publishStatus: number }) => [l.payload, l.publishStatus])).toEqual([
        ["fresh", 2],
        ["too-late", 0],
      ]);
    } finally {
      await dev.client.endAsync();
    }
  });
});
