import { randomInt } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { bootstrapAdmin } from "./bootstrap.js";
import type { Caller } from "./caller.js";
import { createCert } from "./certs.js";
import { authenticateDevice } from "./device-auth.js";
import type { DeviceCredentials } from "./device-credentials.js";
import { createDevice } from "./devices.js";
import { recordHandshakeFailure } from "./handshake-failure.js";
import { createProduct } from "./products.js";
import { updateDevice } from "./update-device.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

/** proto Protocol codes. */
const COAP = 2;
const LWM2M = 3;

describe.each(engines)("certificates and keys of DTLS handshakes on $name", (engine) => {
  let ip = 0;
  async function setup() {
    const { store } = await engine.open();
    const db = store.db;
    const boot = await bootstrapAdmin(db, { username: "root", password: "pw-1234567", tenantName: "T" });
    const caller: Caller = {
      userIntId: 1,
      username: "root",
      tenantId: boot.tenantId!,
      role: "admin",
      serviceAdmin: true,
    };
    const coap = await createProduct(db, caller, { productName: "coap", cloudProtocol: COAP });
    const lwm2m = await createProduct(db, caller, { productName: "lwm2m", cloudProtocol: LWM2M });
    const cert = await createCert(db, caller, { name: "c", enable: 1 });
    const device = (productId: string, certs: number[], extra: Record<string, unknown> = {}) =>
      createDevice(db, caller, { productId, deviceName: `d${ip++}`, upLinkSystem: 1, authType: 2, certs, ...extra });
    const creds = (c: { cn: string; fingerprint: string }, clientId = ""): DeviceCredentials => ({
      kind: "certificate",
      clientId,
      commonName: c.cn,
      fingerprint: c.fingerprint,
    });
    // Each test its own address: DTLS failure logs are bounded per address for the whole process.
    const clientIp = `10.9.${randomInt(256)}.${randomInt(256)}`;
    const auth = (credentials: DeviceCredentials, protocol: number) =>
      authenticateDevice(db, { protocol, clientIp, credentials });
    const logs = () =>
      db
        .selectFrom("connectLogs")
        .select(["tenantId", "deviceIntId", "connectStatus", "reason"])
        .where("ip", "=", clientIp)
        .orderBy("id")
        .execute();
    return { db, caller, coap, lwm2m, cert, device, creds, auth, logs, clientIp };
  }

  it("admits on a CoAP handshake, which names no device, the one device bound to the certificate", async () => {
    const { coap, cert, device, creds, auth } = await setup();
    const d = await device(coap.productId, [cert.id]);
    expect(await auth(creds(cert), COAP)).toMatchObject({ ok: true, device: { deviceIntId: d.id } });
  });

  it("refuses a certificate bound to no device, or to several, when the handshake names none", async () => {
    const { db, caller, coap, device, creds, auth, logs } = await setup();
    const loose = await createCert(db, caller, { name: "loose", enable: 1 });
    expect(await auth(creds(loose), COAP)).toMatchObject({ ok: false, message: "certificate bound to no device" });
    const shared = await createCert(db, caller, { name: "shared", enable: 1 });
    await device(coap.productId, [shared.id]);
    await device(coap.productId, [shared.id]);
    expect(await auth(creds(shared), COAP)).toMatchObject({
      ok: false,
      result: "NOT_ALLOWED",
      message: "certificate bound to several devices",
    });
    expect((await logs()).map((l) => [l.connectStatus, l.tenantId])).toEqual([
      [2, caller.tenantId],
      [2, caller.tenantId],
    ]);
  });

  it("admits an LwM2M Register whose endpoint is the IMEI of the device bound to the certificate, and no other", async () => {
    const { db, caller, lwm2m, cert, device, creds, auth } = await setup();
    const d = await device(lwm2m.productId, [cert.id], { imei: "868333030000101", autoSub: 0 });
    const own = await createCert(db, caller, { name: "own", enable: 1 });
    await device(lwm2m.productId, [own.id], { imei: "868333030000102", autoSub: 0 });
    expect(await auth(creds(cert, "868333030000101"), LWM2M)).toMatchObject({
      ok: true,
      device: { deviceIntId: d.id },
    });
    expect(await auth(creds(cert), LWM2M)).toMatchObject({ ok: true, device: { deviceIntId: d.id } });
    expect(await auth(creds(cert, "868333030000102"), LWM2M)).toMatchObject({
      ok: false,
      message: "device is not bound to this certificate",
    });
    expect(await auth(creds(cert, "868333030000199"), LWM2M)).toMatchObject({
      ok: false,
      message: "endpoint is not an IMEI of the certificate's tenant",
    });
  });

  it("revokes the device's sessions when a certificate is unbound from it", async () => {
    const { db, caller, coap, cert, device } = await setup();
    const spare = await createCert(db, caller, { name: "spare", enable: 1 });
    const d = await device(coap.productId, [cert.id, spare.id]);
    expect((await updateDevice(db, caller, d.id, { certs: [cert.id, spare.id] })).revoke).toBeUndefined();
    expect((await updateDevice(db, caller, d.id, { certs: [spare.id] })).revoke).toBe("certificate unbound");
  });

  it("logs a wrong key the adapter reports under the device's tenant, at most ten a minute per address", async () => {
    const { db, caller, coap, clientIp, logs } = await setup();
    const d = await createDevice(db, caller, {
      productId: coap.productId,
      deviceName: "psk",
      upLinkSystem: 1,
      authType: 1,
    });
    const req = { protocol: COAP, clientIp, credentials: { kind: "psk" as const, identity: d.deviceUsername } };
    for (let i = 0; i < 12; i++) await recordHandshakeFailure(db, req, "wrong key");
    const written = await logs();
    expect(written).toHaveLength(10);
    expect(written[0]).toEqual({ tenantId: caller.tenantId, deviceIntId: d.id, connectStatus: 2, reason: "wrong key" });
  });
});
