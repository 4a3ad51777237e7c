import mqtt from "mqtt";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./helpers.js";

let t: TestFleet;
beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["mqtt-adapter"] });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const mqttAttached = async () =>
  ((await t.api("GET", "/health")).body.adapters as { protocol: number }[]).some((a) => a.protocol === 1);

describe("a revocation made while the MQTT adapter's link is down", () => {
  it("ends the device's session when the link comes back, and stores none of its publishes", async () => {
    const productID = (await t.api("POST", "/products", { productName: "frozen", cloudProtocol: 1 })).body.productID;
    const d = await t.newDevice(productID, "blocked-while-away");
    const client = await mqtt.connectAsync(t.mqttUrl, {
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
      protocolVersion: 4,
      reconnectPeriod: 0,
    });
    const closed = new Promise<void>((resolve) => client.once("close", () => resolve()));
    await client.publishAsync("telemetry", "before", { qos: 1 });
    const adapter = t.fleet.adapters.find((a) => a.name === "mqtt-adapter")!.child;
    adapter.kill("SIGSTOP");
    try {
      // The central node notices the silent link (gRPC keepalive) and detaches the adapter.
      await expect.poll(mqttAttached, { timeout: 30_000, interval: 500 }).toBe(false);
      const detail = (await t.api("GET", `/devices/${d.id}`)).body;
      expect((await t.api("PUT", `/devices/${d.id}`, { ...detail, blocked: 1 })).status).toBe(200);
      // Sent while the adapter is frozen: it reads this once it runs again, before or after its link is back.
      void client.publishAsync("telemetry", "while blocked", { qos: 1 }).catch(() => undefined);
    } finally {
      adapter.kill("SIGCONT");
    }
    await closed;
    await expect.poll(mqttAttached, { timeout: 15_000 }).toBe(true);
    await quietFor(500, "the publish sent while blocked would be stored within this");
    const events = (await t.api("GET", `/devices/${d.id}/events`)).body.items.map(
      (e: { payload: string }) => e.payload,
    );
    expect(events).toEqual(["before"]);
    await expect.poll(async () => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(0);
    // And it cannot come back.
    await expect(
      mqtt.connectAsync(t.mqttUrl, {
        clientId: d.deviceID,
        username: d.deviceUsername,
        password: d.token,
        protocolVersion: 4,
        reconnectPeriod: 0,
      }),
    ).rejects.toMatchObject({ code: 5 });
  }, 90_000);
});
