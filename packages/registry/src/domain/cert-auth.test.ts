import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { bootstrapAdmin } from "./bootstrap.js";
import type { Caller } from "./caller.js";
import { createCert, updateCert } from "./certs.js";
import { authenticateDevice } from "./device-auth.js";
import type { DeviceCredentials } from "./device-credentials.js";
import { createDevice } from "./devices.js";
import { createProduct } from "./products.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("certificate authentication on $name", (engine) => {
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
    const product = await createProduct(db, caller, { productName: "Meter", cloudProtocol: 1 });
    const cert = await createCert(db, caller, { name: "c", enable: 1 });
    const device = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "tls",
      upLinkSystem: 1,
      authType: 2,
      certs: [cert.id],
    });
    const creds = (over: Partial<Extract<DeviceCredentials, { kind: "certificate" }>> = {}): DeviceCredentials => ({
      kind: "certificate",
      clientId: device.deviceId,
      commonName: cert.cn,
      fingerprint: cert.fingerprint,
      ...over,
    });
    const auth = (credentials: DeviceCredentials, protocol = 1) =>
      authenticateDevice(db, { protocol, clientIp: "7.7.7.7", credentials });
    const failures = () =>
      db
        .selectFrom("connectLogs")
        .select(["tenantId", "deviceIntId", "deviceId", "connectStatus", "reason"])
        .where("ip", "=", "7.7.7.7")
        .orderBy("id")
        .execute();
    return { db, caller, product, cert, device, creds, auth, failures };
  }

  it("admits an authType 2 device bound to an enabled certificate whose client id is its deviceID", async () => {
    const { caller, device, creds, auth, cert } = await setup();
    expect(await auth(creds())).toMatchObject({
      ok: true,
      device: {
        deviceIntId: device.id,
        tenantId: caller.tenantId,
        deviceId: device.deviceId,
        mountpoint: `d/${device.id}/`,
        defaultDownlinkTopic: "inbox",
      },
    });
    // Fingerprints in the colon-separated upper-case form are the same fingerprint.
    const colons = cert.fingerprint.toUpperCase().match(/../g)!.join(":");
    expect((await auth(creds({ fingerprint: colons }))).ok).toBe(true);
  });

  it("refuses an unknown certificate with BAD_CREDENTIALS, logged under no tenant", async () => {
    const { creds, auth, failures, device, cert } = await setup();
    expect(await auth(creds({ fingerprint: "00".repeat(32) }))).toMatchObject({
      ok: false,
      result: "BAD_CREDENTIALS",
      message: "unknown certificate",
    });
    expect(await auth(creds({ commonName: `${cert.cn}x` }))).toMatchObject({ ok: false, result: "BAD_CREDENTIALS" });
    expect(await failures()).toEqual(
      Array(2).fill({
        tenantId: null,
        deviceIntId: null,
        deviceId: device.deviceId,
        connectStatus: 2,
        reason: "unknown certificate",
      }),
    );
  });

  it("refuses a disabled certificate with NOT_ALLOWED, logged under the device's tenant", async () => {
    const { db, caller, cert, device, creds, auth, failures } = await setup();
    await updateCert(db, caller, cert.id, { enable: 0 });
    expect(await auth(creds())).toMatchObject({ ok: false, result: "NOT_ALLOWED", message: "certificate disabled" });
    expect(await failures()).toEqual([
      {
        tenantId: caller.tenantId,
        deviceIntId: device.id,
        deviceId: device.deviceId,
        connectStatus: 2,
        reason: "certificate disabled",
      },
    ]);
  });

  it("refuses a client id that is not a deviceID of the certificate's tenant", async () => {
    const { caller, creds, auth, failures } = await setup();
    expect(await auth(creds({ clientId: "someone-else" }))).toMatchObject({ ok: false, result: "BAD_CREDENTIALS" });
    expect(await auth(creds({ clientId: "" }))).toMatchObject({ ok: false, result: "BAD_CREDENTIALS" });
    expect((await failures()).map((f) => [f.tenantId, f.deviceId])).toEqual([
      [caller.tenantId, "someone-else"],
      [caller.tenantId, null],
    ]);
  });

  it("refuses token devices, devices not bound to the certificate, blocked devices and other protocols", async () => {
    const { db, caller, product, device, creds, auth, failures } = await setup();
    const tokenDevice = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "tok",
      upLinkSystem: 1,
      authType: 1,
    });
    expect(await auth(creds({ clientId: tokenDevice.deviceId }))).toMatchObject({
      ok: false,
      result: "NOT_ALLOWED",
      message: "device authenticates with a token",
    });
    const other = await createCert(db, caller, { name: "other", enable: 1 });
    const unbound = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "unbound",
      upLinkSystem: 1,
      authType: 2,
      certs: [other.id],
    });
    expect(await auth(creds({ clientId: unbound.deviceId }))).toMatchObject({
      ok: false,
      result: "NOT_ALLOWED",
      message: "device is not bound to this certificate",
    });
    expect(await auth(creds(), 2)).toMatchObject({
      ok: false,
      result: "NOT_ALLOWED",
      message: "device's product uses another protocol",
    });
    await db.updateTable("devices").set({ blocked: 1 }).where("id", "=", device.id).execute();
    expect(await auth(creds())).toMatchObject({ ok: false, result: "BLOCKED" });
    const logs = await failures();
    expect(logs.map((l) => [l.tenantId, l.deviceIntId, l.connectStatus])).toEqual([
      [caller.tenantId, tokenDevice.id, 2],
      [caller.tenantId, unbound.id, 2],
      [caller.tenantId, device.id, 2],
      [caller.tenantId, device.id, 2],
    ]);
  });

  it("refuses certificate devices on the token path", async () => {
    const { device, auth } = await setup();
    expect(
      await auth({ kind: "token", clientId: "", username: device.deviceUsername, token: device.token }),
    ).toMatchObject({ ok: false, result: "NOT_ALLOWED", message: "device authenticates with a certificate" });
  });
});
