import { describe, expect, it } from "vitest";
import { FakeRegistryClient } from "./fake-registry-client.js";

const gateway = { deviceIntId: 1, deviceId: "gw", username: "gw-user", token: "gw-token", isGateway: true };
const slave = {
  deviceIntId: 2,
  deviceId: "boiler",
  username: "boiler-user",
  token: "x",
  gateway: "gw",
  modBusIndex: 3,
};
const modbus = (over: Record<string, unknown> = {}) => ({
  kind: "modbus" as const,
  gatewayDeviceId: "gw",
  gatewayUsername: "gw-user",
  gatewayToken: "gw-token",
  index: 3,
  ...over,
});

describe("FakeRegistryClient with Modbus credentials", () => {
  it("admits the device of the gateway whose modBusIndex is the index", async () => {
    const registry = new FakeRegistryClient({ devices: [gateway, slave] });
    const outcome = await registry.authenticate("modbus", modbus(), "10.0.0.20");
    expect(outcome).toMatchObject({ ok: true, session: { device: { deviceIntId: 2, deviceId: "boiler" } } });
    expect(registry.authAttempts.at(-1)).toMatchObject({ protocol: "modbus", clientIp: "10.0.0.20" });
  });

  it("refuses a wrong gateway token, another gateway's id, an unknown index and a blocked slave", async () => {
    const registry = new FakeRegistryClient({
      devices: [gateway, slave, { ...slave, deviceIntId: 4, modBusIndex: 4, blocked: true }],
    });
    expect(await registry.authenticate("modbus", modbus({ gatewayToken: "no" }), "")).toMatchObject({
      ok: false,
      code: "BAD_CREDENTIALS",
    });
    expect(await registry.authenticate("modbus", modbus({ gatewayDeviceId: "boiler" }), "")).toMatchObject({
      ok: false,
      code: "BAD_CREDENTIALS",
    });
    expect(await registry.authenticate("modbus", modbus({ index: 9 }), "")).toMatchObject({
      ok: false,
      message: "no device with modBusIndex 9",
    });
    expect(await registry.authenticate("modbus", modbus({ index: 4 }), "")).toMatchObject({
      ok: false,
      code: "BLOCKED",
    });
  });
});
