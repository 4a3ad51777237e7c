import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testApp } from "./test-app.js";

const DATE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

describe.each(["1", "2"] as const)("certificates in Form %s", (form) => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let token: string;
  let eveToken: string;
  let viewerToken: string;
  let tenantId: string;
  let productID: string;

  const call = (method: string, path: string, body?: unknown, as = token) => t.call(method, path, body, as);
  const addUser = async (tenantId: string, username: string, role: string) =>
    (await t.addUser(tenantId, username, role)).token;
  const newCert = async (name: string, enable: unknown = 1, as = token) => {
    const r = await call("POST", "/certs", { name, enable }, as);
    expect(r.status).toBe(201);
    return r.body;
  };
  /** An authType 2 device bound to `certs`, created through the API of this form. */
  const newDevice = (certs: unknown[]) =>
    call(
      "POST",
      "/devices",
      form === "1"
        ? { productID, deviceName: "tls", deviceType: 1, upLinkSystem: 1, authType: 2, certs }
        : { productID, deviceName: "tls", deviceType: 0, authType: 2, certs },
    );

  beforeAll(async () => {
    t = await testApp(form);
    token = await t.login();
    tenantId = (await t.store.db.selectFrom("users").select("tenantId").where("id", "=", 1).executeTakeFirstOrThrow())
      .tenantId;
    await t.addTenant("tenant2");
    eveToken = await addUser("tenant2", "eve", "admin");
    viewerToken = await addUser(tenantId, "viewer", "viewer");
    productID = (await call("POST", "/products", { productName: "Meter", cloudProtocol: 1, description: "p" })).body
      .productID;
  });
  afterAll(() => t.close());

  it("issues a certificate that openssl verifies against root_ca.crt, with a matching key and CN <tenantID>:<suffix>", async () => {
    const r = await call("POST", "/certs", { name: "Field units", enable: "1" });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([
      "CN",
      "cert",
      "createAt",
      "enable",
      "id",
      "key",
      "name",
      "root",
      "updateAt",
    ]);
    expect(r.body).toMatchObject({ name: "Field units", enable: 1, updateAt: null, root: { fileName: "root_ca.crt" } });
    expect(r.body.createAt).toMatch(DATE);
    expect(r.body.CN).toMatch(new RegExp(`^${tenantId}:[A-Za-z0-9]+$`));
    expect(r.body.cert.fileName).toMatch(/\.crt$/);
    expect(r.body.key.fileName).toMatch(/\.key$/);
    const dir = mkdtempSync(join(tmpdir(), "certs-test-"));
    try {
      for (const f of [r.body.cert, r.body.key, r.body.root]) writeFileSync(join(dir, f.fileName), f.content);
      const at = (f: { fileName: string }) => join(dir, f.fileName);
      const openssl = (...args: string[]) => execFileSync("openssl", args, { encoding: "utf8" });
      expect(openssl("verify", "-CAfile", at(r.body.root), at(r.body.cert)).trim()).toBe(`${at(r.body.cert)}: OK`);
      expect(openssl("verify", "-purpose", "sslclient", "-CAfile", at(r.body.root), at(r.body.cert))).toContain("OK");
      expect(openssl("pkey", "-in", at(r.body.key), "-pubout")).toBe(
        openssl("x509", "-in", at(r.body.cert), "-pubkey", "-noout"),
      );
      expect(openssl("x509", "-in", at(r.body.cert), "-noout", "-subject").trim()).toBe(`subject=CN = ${r.body.CN}`);
      const text = openssl("x509", "-in", at(r.body.cert), "-noout", "-text");
      expect(text).toContain("TLS Web Client Authentication");
      expect(text).toContain("prime256v1");
      expect(openssl("x509", "-in", at(r.body.root), "-noout", "-text")).toMatch(/CA:TRUE[\s\S]*Certificate Sign/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const again = await newCert("Second");
    expect(again.CN).not.toBe(r.body.CN);
    expect(again.root.content).toBe(r.body.root.content);
  });

  it("lists only createAt, enable, id and name, filtered by name_like and paged", async () => {
    await newCert("List alpha");
    await newCert("List beta", 0);
    const r = await call("GET", "/certs?name_like=list&_limit=1");
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ count: 2, limit: 1, page: 1 });
    expect(r.body.items).toHaveLength(1);
    expect(Object.keys(r.body.items[0]).sort()).toEqual(["createAt", "enable", "id", "name"]);
    expect(r.body.items[0]).toMatchObject({ name: "List beta", enable: 0 });
    expect((await call("GET", "/certs?name_like=list&_page=2&_limit=1")).body.items[0].name).toBe("List alpha");
    expect((await call("GET", "/certs?_page=x")).body.errorCode).toBe("PARAMETER_INVALID");
  });

  it("shows the detail with cert, key and root as PEM strings and the creator", async () => {
    const c = await newCert("Detail");
    const r = await call("GET", `/certs/${c.id}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual([
      "CN",
      "cert",
      "createAt",
      "createUser",
      "enable",
      "id",
      "key",
      "name",
      "root",
      "updateAt",
    ]);
    expect(r.body).toEqual({
      id: c.id,
      name: "Detail",
      enable: 1,
      CN: c.CN,
      cert: c.cert.content,
      key: c.key.content,
      root: c.root.content,
      createUser: "admin",
      createAt: c.createAt,
      updateAt: null,
    });
  });

  it("edits name and enable from the whole record, dropping read-only members", async () => {
    const c = await newCert("Before");
    const detail = (await call("GET", `/certs/${c.id}`)).body;
    const r = await call("PUT", `/certs/${c.id}`, {
      ...detail,
      name: "After",
      enable: "0",
      id: 999,
      CN: "forged",
      cert: "x",
      key: "y",
      createAt: "2000-01-01 00:00:00",
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["CN", "cert", "createAt", "enable", "id", "key", "name", "updateAt"]);
    expect(r.body).toMatchObject({
      id: c.id,
      name: "After",
      enable: 0,
      CN: c.CN,
      cert: c.cert.content,
      key: c.key.content,
      createAt: c.createAt,
    });
    expect(r.body.updateAt).toMatch(DATE);
  });

  it("rejects bad bodies with FORM_INVALID naming each field", async () => {
    const missing = await call("POST", "/certs", {});
    expect(missing.status).toBe(400);
    expect(missing.body.errorCode).toBe("FORM_INVALID");
    expect(Object.keys(missing.body.errors).sort()).toEqual(["enable", "name"]);
    const bad = await call("POST", "/certs", { name: "x".repeat(51), enable: 2 });
    expect(bad.body.errors).toEqual({ name: "at most 50 characters", enable: "must be one of 0, 1" });
    expect((await call("POST", "/certs", { name: " ", enable: "1" })).body.errors).toEqual({ name: "required" });
    const c = await newCert("Edit me");
    expect((await call("PUT", `/certs/${c.id}`, { enable: "yes" })).body).toMatchObject({
      errorCode: "FORM_INVALID",
      errors: { enable: expect.any(String) },
    });
    expect((await call("POST", "/certs", "not json")).body.errorCode).toBe("BAD_REQUEST");
  });

  it("answers 404 for another tenant's certificate and deletes none of it", async () => {
    const c = await newCert("Mine");
    for (const [method, path, body] of [
      ["GET", `/certs/${c.id}`],
      ["PUT", `/certs/${c.id}`, { name: "stolen" }],
    ] as const) {
      const r = await call(method, path, body, eveToken);
      expect(r.status).toBe(404);
      expect(r.body.errorCode).toBe("DATA_NOT_FOUND");
    }
    expect((await call("DELETE", `/certs?ids=${c.id}`, undefined, eveToken)).status).toBe(204);
    expect((await call("GET", `/certs/${c.id}`)).body.name).toBe("Mine");
    expect((await call("GET", "/certs", undefined, eveToken)).body.meta.count).toBe(0);
    expect((await call("GET", "/certs/999999")).status).toBe(404);
  });

  it("lets a viewer read but not write", async () => {
    const c = await newCert("Viewed");
    expect((await call("GET", "/certs", undefined, viewerToken)).status).toBe(200);
    expect((await call("GET", `/certs/${c.id}`, undefined, viewerToken)).status).toBe(200);
    for (const [method, path, body] of [
      ["POST", "/certs", { name: "v", enable: 1 }],
      ["PUT", `/certs/${c.id}`, { enable: 0 }],
      ["DELETE", `/certs?ids=${c.id}`],
    ] as const) {
      const r = await call(method, path, body, viewerToken);
      expect(r.status).toBe(403);
      expect(r.body.errorCode).toBe("PERMISSION_DENIED");
    }
    expect((await call("GET", `/certs/${c.id}`)).body.enable).toBe(1);
  });

  it("refuses to delete a certificate bound to a device with exactly the REFERENCED_ERROR body, then deletes it once unbound", async () => {
    const c = await newCert("Bound");
    const d = await newDevice([c.id]);
    expect(d.status).toBe(201);
    const r = await call("DELETE", `/certs?ids=${c.id}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      errorCode: "REFERENCED_ERROR",
      errors: { device: "the certificate is still bound to a device" },
      message: "Referenced error",
    });
    expect((await call("DELETE", `/devices?ids=${d.body.id}`)).status).toBe(204);
    expect((await call("DELETE", `/certs?ids=${c.id}`)).status).toBe(204);
    expect((await call("GET", `/certs/${c.id}`)).status).toBe(404);
    expect((await call("DELETE", "/certs?ids=a")).body.errorCode).toBe("PARAMETER_INVALID");
  });

  it("refuses to bind an unknown or another tenant's certificate, naming certs", async () => {
    const eves = await newCert("Eve's", 1, eveToken);
    for (const certs of [[eves.id], [987654]]) {
      const r = await newDevice(certs);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        errorCode: "FORM_INVALID",
        errors: { certs: expect.stringContaining(String(certs[0])) },
      });
    }
  });

  it("ends the live sessions of the bound devices when the certificate is disabled", async () => {
    const c = await newCert("Kick");
    const d = (await newDevice([c.id])).body;
    const live = t.attachDevice(d.id, tenantId);
    const kicks = live.sent.kicks;
    try {
      expect((await call("PUT", `/certs/${c.id}`, { name: "renamed" })).status).toBe(200);
      expect(kicks).toEqual([]);
      expect((await call("PUT", `/certs/${c.id}`, { enable: 0 })).body.enable).toBe(0);
      expect(kicks).toEqual([[d.id, "certificate disabled"]]);
    } finally {
      live.detach();
    }
  });
});
