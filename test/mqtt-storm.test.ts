import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";
import { countCodes, rawConnect } from "./raw-mqtt.js";

/** Devices that connect at once: a bounded storm, as after a network or adapter outage. */
const DEVICES = 2000;

let t: TestFleet;
let devices: TestDevice[];

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["mqtt-adapter"] });
  const product = (await t.api("POST", "/products", { productName: "storm", cloudProtocol: 1 })).body;
  devices = [];
  const names = Array.from({ length: DEVICES }, (_, i) => `storm-${i}`);
  // 16 creations in flight at a time.
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let name = names.pop(); name; name = names.pop()) devices.push(await t.newDevice(product.productID, name));
    }),
  );
}, 180_000);

afterAll(async () => {
  await t?.close();
});

const connectedDevices = async () =>
  ((await t.api("GET", "/health")).body.adapters as { protocol: number; connectedDevices: number }[])
    .filter((a) => a.protocol === 1)
    .reduce((n, a) => n + a.connectedDevices, 0);

describe("a reconnect storm", () => {
  it(`connects all of ${DEVICES} devices that connect at once, and every one is online`, async () => {
    const port = Number(new URL(t.mqttUrl).port);
    const attached = async () =>
      ((await t.api("GET", "/health")).body.adapters as { instance: string; protocol: number; attachedAt: string }[])
        .filter((a) => a.protocol === 1)
        .map((a) => `${a.instance}@${a.attachedAt}`);
    const linkBefore = await attached();
    const results = await Promise.all(
      devices.map((d) => rawConnect(port, { clientId: d.deviceID, username: d.deviceUsername, password: d.token })),
    );
    expect(countCodes(results)).toEqual({ 0: DEVICES });
    // The adapter's registry stream stayed up through the storm: same instance, attached at the same moment.
    expect(await attached()).toEqual(linkBefore);
    await expect.poll(connectedDevices, { timeout: 30_000, interval: 500 }).toBe(DEVICES);
    const online = await t.api("GET", `/devices/${devices[0]!.id}`);
    expect(online.body.deviceStatus).toBe(1);
    for (const r of results) r.socket.destroy();
    await expect.poll(connectedDevices, { timeout: 30_000, interval: 500 }).toBe(0);
    await expect
      .poll(async () => (await t.api("GET", `/devices/${devices.at(-1)!.id}`)).body.deviceStatus, { timeout: 10_000 })
      .toBe(0);
  }, 240_000);
});
