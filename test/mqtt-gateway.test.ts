import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./helpers.js";

let t: TestFleet;
beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["mqtt-adapter"] });
}, 90_000);
afterAll(() => t?.close());

describe("an MQTT gateway", () => {
  it("publishes for its own devices, receives their commands, and its other publishes are gateway events", async () => {
    const productID = (await t.api("POST", "/products", { productName: "edge", cloudProtocol: 1 })).body.productID;
    const gw = (
      await t.api("POST", "/gateways", { productID, gatewayName: "edge-gw", gatewayProtocol: 1, authType: 1 })
    ).body;
    const child = (
      await t.api("POST", "/devices", {
        productID,
        deviceName: "sensor",
        deviceID: "sensor-1",
        deviceType: 1,
        upLinkSystem: 2,
        gateway: gw.id,
        authType: 1,
      })
    ).body;
    const stranger = (
      await t.api("POST", "/devices", {
        productID,
        deviceName: "other",
        deviceID: "other-1",
        deviceType: 1,
        upLinkSystem: 1,
        authType: 1,
      })
    ).body;
    const client = await mqtt.connectAsync(t.mqttUrl, {
      clientId: gw.deviceID,
      username: gw.deviceUsername,
      password: gw.token,
      reconnectPeriod: 0,
    });
    try {
      await client.publishAsync(`devices/${child.deviceID}/temp`, "21.5", { qos: 1 });
      await client.publishAsync("status", "up", { qos: 1 });
      await client.publishAsync(`devices/${stranger.deviceID}/temp`, "spoofed", { qos: 0 });
      await client.publishAsync("status", "still up", { qos: 1 }); // after the refused relay: the gateway is still served

      const childEvents = (await t.api("GET", `/devices/${child.id}/events`)).body;
      expect(childEvents.items.map((e: { topic: string; payload: string }) => [e.topic, e.payload])).toEqual([
        ["temp", "21.5"],
      ]);
      expect((await t.api("GET", `/devices/${stranger.id}/events`)).body.meta.count).toBe(0);
      const gwEvents = (await t.api("GET", `/gateways/${gw.id}/events`)).body;
      expect(gwEvents.items.map((e: { topic: string }) => e.topic).sort()).toEqual(["status", "status", "temp"]);
      expect(gwEvents.items[0].gatewayName).toBe("edge-gw");

      // A command for the child goes through its gateway, on the relay topic, and the gateway's PUBACK delivers it.
      await client.subscribeAsync("devices/+/inbox", { qos: 1 });
      const received = new Promise<{ topic: string; payload: string }>((resolve) =>
        client.once("message", (topic, payload) => resolve({ topic, payload: payload.toString() })),
      );
      const pub = await t.api("POST", "/device_publish", { deviceID: child.deviceID, payload: "calibrate" });
      expect(pub.body.publishStatus).toBe("1");
      expect(await received).toEqual({ topic: `devices/${child.deviceID}/inbox`, payload: "calibrate" });
      await expect
        .poll(async () => (await t.api("GET", `/devices/${child.id}/control_logs`)).body.items[0]?.publishStatus, {
          timeout: 5000,
        })
        .toBe(2);
    } finally {
      await client.endAsync();
    }
  });
});
