import type { Socket } from "node:net";
import mqttPacket from "mqtt-packet";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";
import { rawConnect } from "./raw-mqtt.js";

/** Connections of one device's client id opened at the same moment, per wave; waves follow each other. */
const CONNECTS = 40;
const WAVES = 3;

let t: TestFleet;
let device: TestDevice;

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["mqtt-adapter"] });
  const product = (await t.api("POST", "/products", { productName: "same-id-storm", cloudProtocol: 1 })).body;
  device = await t.newDevice(product.productID, "same-id-storm");
}, 120_000);

afterAll(async () => {
  await t?.close();
});

const status = async () => (await t.api("GET", `/devices/${device.id}`)).body.deviceStatus as number;
const mqttConnected = async () =>
  ((await t.api("GET", "/health")).body.adapters as { protocol: number; connectedDevices: number }[])
    .filter((a) => a.protocol === 1)
    .reduce((n, a) => n + a.connectedDevices, 0);

/** Publishes QoS 1 on `socket` and resolves true once its PUBACK came back (false after 5 s or on close). */
function publishAcked(socket: Socket): Promise<boolean> {
  return new Promise((resolve) => {
    const parser = mqttPacket.parser({ protocolVersion: 4 });
    const timer = setTimeout(() => resolve(false), 5000);
    parser.on("packet", (p) => {
      if (p.cmd === "puback" && p.messageId === 7) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    socket.on("data", (b: Buffer) => parser.parse(b));
    socket.once("close", () => resolve(false));
    socket.write(
      mqttPacket.generate({
        cmd: "publish",
        topic: "telemetry",
        payload: '{"t":1}',
        qos: 1,
        messageId: 7,
        retain: false,
        dup: false,
      }),
    );
  });
}

describe("a storm of concurrent connects with one device's client id", () => {
  it("ends with one live connection that publishes, and the device online", async () => {
    const port = Number(new URL(t.mqttUrl).port);
    const credentials = { clientId: device.deviceID, username: device.deviceUsername, password: device.token };
    const sockets: Socket[] = [];
    for (let wave = 0; wave < WAVES; wave++) {
      const results = await Promise.all(Array.from({ length: CONNECTS }, () => rawConnect(port, credentials)));
      // Every CONNECT was accepted (0) or its connection was taken over before its CONNACK (-1): never refused.
      expect(results.filter((r) => r.code !== 0 && r.code !== -1)).toEqual([]);
      sockets.push(...results.map((r) => r.socket));
    }
    // Takeovers close every connection but the one that won.
    await expect
      .poll(() => sockets.filter((s) => !s.destroyed && s.readyState === "open").length, {
        timeout: 10_000,
      })
      .toBe(1);
    const survivor = sockets.find((s) => !s.destroyed && s.readyState === "open")!;
    await expect.poll(status, { timeout: 10_000 }).toBe(1);
    await expect.poll(mqttConnected, { timeout: 10_000 }).toBe(1);
    // Settled, not a passing moment: a session closed late by a lost race would turn the device offline now.
    await quietFor(1500, "a session closed late by a lost race would turn the device offline within this");
    expect(await status()).toBe(1);
    expect(await mqttConnected()).toBe(1);
    expect(await publishAcked(survivor)).toBe(true);
    survivor.destroy();
    await expect.poll(status, { timeout: 10_000 }).toBe(0);
  }, 120_000);
});
