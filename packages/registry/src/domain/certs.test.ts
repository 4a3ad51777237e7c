import { X509Certificate } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { loadOrCreateCa, serviceCa } from "../certs/ca.js";
import { assertCertsOfTenant, createCert, deleteCerts, getCert, listCerts, updateCert } from "./certs.js";
import { createDevice, deleteDevices } from "./devices.js";
import { updateDevice } from "./update-device.js";
import { createProduct } from "./products.js";
import { twoTenants } from "./test-tenants.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const page = { page: 1, limit: 10 };

describe.each(engines)("certificates on $name", (engine) => {
  async function setup() {
    const { place, db, caller, other } = await twoTenants(engine);
    const product = await createProduct(db, caller, { productName: "Meter", cloudProtocol: 1 });
    const device = (certs: number[], who = caller, productId = product.productId) =>
      createDevice(db, who, { productId, deviceName: "d", upLinkSystem: 1, authType: 2, certs });
    return { db, place, caller, other, product, device };
  }

  it("creates the CA once: two nodes starting at once end up with the same CA", async () => {
    const { place } = await engine.open();
    const { store: a } = await engine.open({}, place);
    const { store: b } = await engine.open({}, place);
    const [x, y] = await Promise.all([loadOrCreateCa(a.db), loadOrCreateCa(b.db)]);
    expect(x.certPem).toBe(y.certPem);
    expect((await loadOrCreateCa(a.db)).certPem).toBe(x.certPem);
    const rows = await a.db.selectFrom("settings").select("key").where("key", "like", "ca.%").orderBy("key").execute();
    expect(rows.map((r) => r.key)).toEqual(["ca.cert", "ca.key"]);
    const ca = new X509Certificate(x.certPem);
    expect(ca.ca).toBe(true);
    expect(ca.checkIssued(ca)).toBe(true);
  });

  it("issues a certificate with CN <tenantID>:<suffix>, signed by the CA, and stores its key and fingerprint", async () => {
    const { db, caller } = await setup();
    const c = await createCert(db, caller, { name: "first", enable: 1 }, 5_000);
    expect(c.cn).toMatch(new RegExp(`^${caller.tenantId}:[A-Za-z0-9]{16}$`));
    expect(c).toMatchObject({
      name: "first",
      enable: 1,
      tenantId: caller.tenantId,
      userIntId: 1,
      createUser: "root",
      createAt: 5_000,
      updateAt: null,
    });
    const x = new X509Certificate(c.certPem);
    expect(x.subject).toBe(`CN=${c.cn}`);
    expect(x.checkIssued(new X509Certificate(c.rootPem))).toBe(true);
    expect(x.verify(new X509Certificate(c.rootPem).publicKey)).toBe(true);
    expect(x.fingerprint256.replace(/:/g, "").toLowerCase()).toBe(c.fingerprint);
    expect(c.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(c.rootPem).toBe((await serviceCa(db)).certPem);
    const other = await createCert(db, caller, { name: "second", enable: 0 });
    expect(other.cn).not.toBe(c.cn);
    expect(other.fingerprint).not.toBe(c.fingerprint);
  });

  it("lists newest first with a name filter and hides other tenants' certificates", async () => {
    const { db, caller, other } = await setup();
    const a = await createCert(db, caller, { name: "Alpha", enable: 1 });
    const b = await createCert(db, caller, { name: "beta", enable: 1 });
    await createCert(db, other, { name: "alpha of eve", enable: 1 });
    expect((await listCerts(db, caller, page)).items.map((c) => c.id)).toEqual([b.id, a.id]);
    expect((await listCerts(db, caller, page, { nameLike: "ALPH" })).items.map((c) => c.name)).toEqual(["Alpha"]);
    await expect(getCert(db, other, a.id)).rejects.toMatchObject({ code: "DATA_NOT_FOUND" });
    await expect(updateCert(db, other, a.id, { enable: 0 })).rejects.toMatchObject({ code: "DATA_NOT_FOUND" });
  });

  it("edits name and enable only, and answers the bound devices when it disables", async () => {
    const { db, caller, device } = await setup();
    const c = await createCert(db, caller, { name: "n", enable: 1 });
    const d = await device([c.id]);
    const renamed = await updateCert(db, caller, c.id, { name: "renamed" }, 9_000);
    expect(renamed).toEqual({
      cert: expect.objectContaining({ name: "renamed", enable: 1, updateAt: 9_000, cn: c.cn, certPem: c.certPem }),
      kick: [],
    });
    expect((await updateCert(db, caller, c.id, { enable: 0 })).kick).toEqual([d.id]);
    expect((await updateCert(db, caller, c.id, { enable: 0 })).kick).toEqual([]);
    expect((await updateCert(db, caller, c.id, { enable: 1 })).kick).toEqual([]);
  });

  it("refuses to delete a certificate still bound to a device, and ignores other tenants' ids", async () => {
    const { db, caller, other, device } = await setup();
    const bound = await createCert(db, caller, { name: "bound", enable: 1 });
    const free = await createCert(db, caller, { name: "free", enable: 1 });
    const d = await device([bound.id]);
    await expect(deleteCerts(db, caller, [free.id, bound.id])).rejects.toMatchObject({
      code: "REFERENCED_ERROR",
      errors: { device: expect.any(String) },
      message: "Referenced error",
    });
    expect((await listCerts(db, caller, page)).count).toBe(2);
    await deleteCerts(db, other, [free.id, bound.id]);
    expect((await listCerts(db, caller, page)).count).toBe(2);
    await deleteDevices(db, caller, [d.id]);
    await deleteCerts(db, caller, [free.id, bound.id]);
    expect((await listCerts(db, caller, page)).count).toBe(0);
  });

  it("binds only the tenant's own certificates: unknown and foreign ids are FORM_INVALID naming certs", async () => {
    const { db, caller, other, device } = await setup();
    const mine = await createCert(db, caller, { name: "mine", enable: 1 });
    const eves = await createCert(db, other, { name: "eve's", enable: 1 });
    await expect(device([mine.id, eves.id])).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { certs: `no such certificate: ${eves.id}` },
    });
    await expect(device([424242])).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { certs: "no such certificate: 424242" },
    });
    const d = await device([mine.id, mine.id]);
    expect(d.certs).toEqual([mine.id]);
    await expect(updateDevice(db, caller, d.id, { certs: [eves.id] })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { certs: expect.any(String) },
    });
    expect((await updateDevice(db, caller, d.id, { certs: [] })).device.certs).toEqual([]);
    await expect(assertCertsOfTenant(db, caller.tenantId, [-1, 2 ** 60])).rejects.toMatchObject({
      errors: { certs: `no such certificate: -1, ${2 ** 60}` },
    });
    await expect(assertCertsOfTenant(db, "other", [eves.id])).resolves.toBeUndefined();
  });
});
