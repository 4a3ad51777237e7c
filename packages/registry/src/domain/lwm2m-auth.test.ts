import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { authenticateDevice } from "./device-auth.js";
import { createDevice } from "./devices.js";
import { updateDevice } from "./update-device.js";
import { createProduct } from "./products.js";
import { sessionRevocations } from "./session-revocations.js";
import { twoTenants } from "./test-tenants.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const LWM2M = 3;

describe.each(engines)("LwM2M clients registering by endpoint name on $name", (engine) => {
  async function setup() {
    const { db, caller } = await twoTenants(engine);
    const product = await createProduct(db, caller, { productName: "NB meters", cloudProtocol: LWM2M });
    const mqtt = await createProduct(db, caller, { productName: "MQTT things", cloudProtocol: 1 });
    const meter = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "meter",
      upLinkSystem: 1,
      authType: 1,
      imei: "868333030000001",
      autoSub: 1,
    });
    const other = await createDevice(db, caller, {
      productId: mqtt.productId,
      deviceName: "mqtt thing",
      upLinkSystem: 1,
      authType: 1,
      imei: "868333030000002",
    });
    const register = (endpoint: string) =>
      authenticateDevice(db, { protocol: LWM2M, clientIp: "10.1.1.1", credentials: { kind: "lwm2m", endpoint } });
    return { db, caller, meter, other, register };
  }

  it("admits the device whose IMEI is the endpoint name, with its autoSub", async () => {
    const { meter, register } = await setup();
    expect(await register("868333030000001")).toMatchObject({
      ok: true,
      device: { deviceIntId: meter.id, protocol: LWM2M, autoSub: true },
      credentialStamp: "l:868333030000001",
    });
  });

  it("refuses an unknown endpoint, a device of another protocol and a blocked device, each logged", async () => {
    const { db, caller, meter, register } = await setup();
    expect(await register("999")).toMatchObject({ ok: false, result: "BAD_CREDENTIALS" });
    expect(await register("")).toMatchObject({ ok: false, result: "BAD_CREDENTIALS" });
    expect(await register("868333030000002")).toMatchObject({ ok: false, result: "NOT_ALLOWED" });
    await updateDevice(db, caller, meter.id, { blocked: 1 });
    expect(await register("868333030000001")).toMatchObject({ ok: false, result: "BLOCKED" });
    const logs = await db.selectFrom("connectLogs").select(["deviceId", "connectStatus"]).orderBy("id").execute();
    expect(logs.map((l) => l.connectStatus)).toEqual([2, 2, 2, 2]);
    expect(logs[0]!.deviceId).toBe("999");
  });

  it("ends the session when the device's IMEI changes", async () => {
    const { db, caller, meter, register } = await setup();
    const r = await register("868333030000001");
    if (!r.ok) throw new Error(r.message);
    const held = [{ sessionId: "s", deviceIntId: meter.id, credentialStamp: r.credentialStamp }];
    expect(await sessionRevocations(db, held)).toEqual(new Map());
    expect((await updateDevice(db, caller, meter.id, { imei: "868333030000009" })).revoke).toBe("IMEI changed");
    expect(await sessionRevocations(db, held)).toEqual(new Map([["s", "IMEI changed"]]));
  });
});
