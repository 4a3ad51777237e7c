import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { modbusFleet } from "../modbus/test-fixtures.js";
import { authenticateDevice } from "./device-auth.js";
import { updateDevice } from "./update-device.js";
import { sessionRevocations } from "./session-revocations.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const MODBUS = 7;

describe.each(engines)("Modbus slaves and gateways authenticating on $name", (engine) => {
  const creds = (index: number, token = "gw-1-token-secret", gatewayDeviceId = "gw-1") => ({
    kind: "modbus" as const,
    gatewayDeviceId,
    gatewayUsername: "gw-1-user",
    gatewayToken: token,
    index,
  });

  it("admits the gateway on the Modbus adapter by its token, and a slave by the gateway's token and its unit id", async () => {
    const { db, gateway, slave } = await modbusFleet(engine);
    const meter = await slave(12);
    const gw = await authenticateDevice(db, {
      protocol: MODBUS,
      clientIp: "10.0.0.2",
      credentials: { kind: "token", clientId: "gw-1", username: "gw-1-user", token: "gw-1-token-secret" },
    });
    expect(gw).toMatchObject({ ok: true, device: { deviceIntId: gateway.id, isGateway: true } });
    const s = await authenticateDevice(db, { protocol: MODBUS, clientIp: "10.0.0.2", credentials: creds(12) });
    expect(s).toMatchObject({
      ok: true,
      device: { deviceIntId: meter.id, deviceId: "meter-12", protocol: MODBUS, isGateway: false },
      credentialStamp: `m:${gateway.id}:12`,
    });
  });

  it("refuses a wrong gateway token, a gateway id that is not the username's, an unknown unit, and a blocked slave, each logged", async () => {
    const { db, caller, slave } = await modbusFleet(engine);
    const meter = await slave(1);
    const attempt = (c: ReturnType<typeof creds>) =>
      authenticateDevice(db, { protocol: MODBUS, clientIp: "10.0.0.2", credentials: c });
    expect(await attempt(creds(1, "wrong-token-123"))).toMatchObject({ ok: false, result: "BAD_CREDENTIALS" });
    expect(await attempt(creds(1, undefined, "gw-2"))).toMatchObject({ ok: false, result: "BAD_CREDENTIALS" });
    expect(await attempt(creds(2))).toMatchObject({
      ok: false,
      result: "BAD_CREDENTIALS",
      message: "no device of the gateway has modBusIndex 2",
    });
    await updateDevice(db, caller, meter.id, { blocked: 1 });
    expect(await attempt(creds(1))).toMatchObject({ ok: false, result: "BLOCKED" });
    const logs = await db
      .selectFrom("connectLogs")
      .select(["tenantId", "deviceId", "connectStatus"])
      .where("connectStatus", "=", 2)
      .orderBy("id")
      .execute();
    expect(logs).toHaveLength(4);
    expect(logs[2]).toEqual({ tenantId: caller.tenantId, deviceId: "gw-1!2", connectStatus: 2 });
  });

  it("ends a slave's session when its modBusIndex or gateway changes, and keeps it otherwise", async () => {
    const { db, caller, slave } = await modbusFleet(engine);
    const meter = await slave(1);
    const s = await authenticateDevice(db, { protocol: MODBUS, clientIp: "", credentials: creds(1) });
    if (!s.ok) throw new Error(s.message);
    const held = [{ sessionId: "s1", deviceIntId: meter.id, credentialStamp: s.credentialStamp }];
    expect(await sessionRevocations(db, held)).toEqual(new Map());
    const r = await updateDevice(db, caller, meter.id, { modBusIndex: 2 });
    expect(r.revoke).toBe("gateway or modBusIndex changed");
    expect(await sessionRevocations(db, held)).toEqual(new Map([["s1", "gateway or modBusIndex changed"]]));
    expect((await updateDevice(db, caller, meter.id, { description: "x" })).revoke).toBeUndefined();
  });
});
