import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { authenticateDevice } from "./device-auth.js";
import { createDevice } from "./devices.js";
import { createProduct } from "./products.js";
import { pskKeysOf } from "./psk-auth.js";
import { sessionRevocations } from "./session-revocations.js";
import { twoTenants } from "./test-tenants.js";
import { updateDevice } from "./update-device.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const MQTT = 1;
const COAP = 2;

describe("pskKeysOf", () => {
  it("answers a token's UTF-8 bytes, and the bytes its hex digits spell when it is hex", () => {
    expect(pskKeysOf("00ff")).toEqual([Buffer.from("00ff"), Buffer.from([0, 255])]);
    expect(pskKeysOf("secret")).toEqual([Buffer.from("secret")]);
    expect(pskKeysOf("abc")).toEqual([Buffer.from("abc")]);
  });
});

describe.each(engines)("CoAP devices by DTLS PSK identity on $name", (engine) => {
  async function setup() {
    const { db, caller } = await twoTenants(engine);
    const product = await createProduct(db, caller, { productName: "CoAP meters", cloudProtocol: COAP });
    const meter = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "meter",
      upLinkSystem: 1,
      authType: 1,
    });
    const lookup = (identity: string, protocol = COAP) =>
      authenticateDevice(db, { protocol, clientIp: "10.1.1.1", credentials: { kind: "psk", identity } });
    return { db, caller, meter, lookup };
  }

  it("admits the device whose deviceUsername is the identity, with its token as candidate keys", async () => {
    const { meter, lookup } = await setup();
    const r = await lookup(meter.deviceUsername);
    expect(r).toMatchObject({ ok: true, device: { deviceIntId: meter.id, protocol: COAP } });
    expect(r.ok && r.pskKeys).toEqual(pskKeysOf(meter.token));
  });

  it("refuses an unknown identity, an adapter other than CoAP or LwM2M and a blocked device, each logged with status 2", async () => {
    const { db, caller, meter, lookup } = await setup();
    expect(await lookup("nobody")).toMatchObject({ ok: false, result: "BAD_CREDENTIALS" });
    expect(await lookup(meter.deviceUsername, MQTT)).toMatchObject({ ok: false, result: "NOT_ALLOWED" });
    await updateDevice(db, caller, meter.id, { blocked: 1 });
    expect(await lookup(meter.deviceUsername)).toMatchObject({ ok: false, result: "BLOCKED" });
    const logs = await db.selectFrom("connectLogs").select(["connectStatus"]).execute();
    expect(logs.map((l) => l.connectStatus)).toEqual([2, 2, 2]);
  });

  it("ends the session when the device's token changes", async () => {
    const { db, caller, meter, lookup } = await setup();
    const r = await lookup(meter.deviceUsername);
    if (!r.ok) throw new Error(r.message);
    const held = [{ sessionId: "s", deviceIntId: meter.id, credentialStamp: r.credentialStamp }];
    expect(await sessionRevocations(db, held)).toEqual(new Map());
    await updateDevice(db, caller, meter.id, { token: "a-new-token-of-the-device" });
    expect((await sessionRevocations(db, held)).get("s")).toBeTruthy();
  });
});

describe.each(engines)("LwM2M devices by DTLS PSK identity on $name", (engine) => {
  it("admits the device whose IMEI is the identity, with its token as keys, and refuses its deviceUsername", async () => {
    const LWM2M = 3;
    const { db, caller } = await twoTenants(engine);
    const product = await createProduct(db, caller, { productName: "NB meters", cloudProtocol: LWM2M });
    const meter = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "meter",
      upLinkSystem: 1,
      authType: 1,
      imei: "868333030000001",
      autoSub: 1,
    });
    const lookup = (identity: string) =>
      authenticateDevice(db, { protocol: LWM2M, clientIp: "10.1.1.1", credentials: { kind: "psk", identity } });
    const r = await lookup("868333030000001");
    expect(r).toMatchObject({ ok: true, device: { deviceIntId: meter.id, protocol: LWM2M } });
    expect(r.ok && r.pskKeys).toEqual(pskKeysOf(meter.token));
    expect(await lookup(meter.deviceUsername)).toMatchObject({ ok: false, result: "BAD_CREDENTIALS" });
  });
});
