import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { createCert, deleteCerts, updateCert } from "./certs.js";
import { authenticateDevice } from "./device-auth.js";
import { createDevice, deleteDevices } from "./devices.js";
import { updateDevice } from "./update-device.js";
import { createProduct } from "./products.js";
import { twoTenants } from "./test-tenants.js";
import { sessionRevocations } from "./session-revocations.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("re-checking held sessions on $name", (engine) => {
  async function setup() {
    const { db, caller } = await twoTenants(engine);
    const product = await createProduct(db, caller, { productName: "Meter", cloudProtocol: 1 });
    const tokenDevice = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "tok",
      upLinkSystem: 1,
      authType: 1,
    });
    const cert = await createCert(db, caller, { name: "c", enable: 1 });
    const certDevice = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "tls",
      upLinkSystem: 1,
      authType: 2,
      certs: [cert.id],
    });
    /** A session as an adapter would hold it after a real authentication. */
    const held = async (sessionId: string, kind: "token" | "certificate") => {
      const outcome = await authenticateDevice(db, {
        protocol: 1,
        clientIp: "1.1.1.1",
        credentials:
          kind === "token"
            ? {
                kind,
                clientId: tokenDevice.deviceId,
                username: tokenDevice.deviceUsername,
                token: tokenDevice.token,
              }
            : { kind, clientId: certDevice.deviceId, commonName: cert.cn, fingerprint: cert.fingerprint },
      });
      if (!outcome.ok) throw new Error(outcome.message);
      return { sessionId, deviceIntId: outcome.device.deviceIntId, credentialStamp: outcome.credentialStamp };
    };
    return { db, caller, tokenDevice, certDevice, cert, held };
  }

  it("keeps sessions whose records did not change, and never puts the token in the stamp", async () => {
    const { db, held, tokenDevice } = await setup();
    const sessions = [await held("a", "token"), await held("b", "certificate")];
    expect(sessions[0]!.credentialStamp).not.toContain(tokenDevice.token);
    expect(await sessionRevocations(db, sessions)).toEqual(new Map());
  });

  it("revokes the sessions of a blocked, a deleted, and a re-credentialed device with the reason", async () => {
    const { db, caller, held, tokenDevice, certDevice } = await setup();
    const token = await held("t", "token");
    const cert = await held("c", "certificate");
    await updateDevice(db, caller, tokenDevice.id, { token: "a-new-token-1234" });
    expect(await sessionRevocations(db, [token])).toEqual(new Map([["t", "device credentials changed"]]));
    await updateDevice(db, caller, certDevice.id, { blocked: 1 });
    expect(await sessionRevocations(db, [cert])).toEqual(new Map([["c", "device blocked"]]));
    await deleteDevices(db, caller, [tokenDevice.id]);
    expect((await sessionRevocations(db, [token])).get("t")).toBe("device deleted");
  });

  it("revokes a certificate session when the certificate is disabled, unbound or deleted", async () => {
    const { db, caller, held, cert, certDevice } = await setup();
    const s = await held("c", "certificate");
    await updateCert(db, caller, cert.id, { enable: 0 });
    expect((await sessionRevocations(db, [s])).get("c")).toBe("certificate disabled");
    await updateCert(db, caller, cert.id, { enable: 1 });
    expect(await sessionRevocations(db, [s])).toEqual(new Map());
    await updateDevice(db, caller, certDevice.id, { certs: [] });
    expect((await sessionRevocations(db, [s])).get("c")).toBe("certificate unbound or deleted");
    await deleteCerts(db, caller, [cert.id]);
    expect((await sessionRevocations(db, [s])).get("c")).toBe("certificate unbound or deleted");
  });

  it("checks only blocked and deleted for a session without a stamp", async () => {
    const { db, caller, tokenDevice } = await setup();
    const s = { sessionId: "x", deviceIntId: tokenDevice.id, credentialStamp: "" };
    await updateDevice(db, caller, tokenDevice.id, { token: "another-token-99" });
    expect(await sessionRevocations(db, [s])).toEqual(new Map());
    await updateDevice(db, caller, tokenDevice.id, { blocked: 1 });
    expect((await sessionRevocations(db, [s])).get("x")).toBe("device blocked");
  });
});
