import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testApp } from "./test-app.js";

let t: Awaited<ReturnType<typeof testApp>>;
let admin: string;
let operator: string;
let viewer: string;
/** Admin of a second tenant, "Acme". */
let acmeAdmin: string;
let acmeTenantID: string;

const basic = (appID: string, appToken: string) => ({
  authorization: `Basic ${Buffer.from(`${appID}:${appToken}`).toString("base64")}`,
});
const withKey = (key: { appID: string; appToken: string }) => basic(key.appID, key.appToken);

beforeAll(async () => {
  t = await testApp();
  admin = await t.login();
  for (const [username, role] of [
    ["op1", "operator"],
    ["view1", "viewer"],
  ]) {
    expect((await t.call("POST", "/users", { username, password: `${username}-pass-1`, role }, admin)).status).toBe(
      201,
    );
  }
  operator = await t.login("op1", "op1-pass-1");
  viewer = await t.login("view1", "view1-pass-1");
  acmeTenantID = (await t.call("POST", "/tenants", { tenantName: "Acme" }, admin)).body.tenantID;
  const acme = await t.call(
    "POST",
    "/users",
    { username: "acme-admin", password: "acme-pass-1", role: "admin", tenantID: acmeTenantID },
    admin,
  );
  expect(acme.status).toBe(201);
  acmeAdmin = await t.login("acme-admin", "acme-pass-1");
});
afterAll(() => t.close());

describe("application keys", () => {
  it("are created with 201, a generated appID and an appToken shown only in that answer", async () => {
    const r = await t.call(
      "POST",
      "/applications",
      { appName: "etl", description: "nightly export", expiresAt: "2999-01-02 03:04:05" },
      admin,
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      appName: "etl",
      role: "viewer",
      description: "nightly export",
      enable: 1,
      expiresAt: "2999-01-02 03:04:05",
      userIntID: 1,
      updateAt: null,
    });
    expect(Object.keys(r.body).sort()).toEqual([
      "appID",
      "appName",
      "appToken",
      "createAt",
      "description",
      "enable",
      "expiresAt",
      "id",
      "role",
      "tenantID",
      "updateAt",
      "userIntID",
    ]);
    expect(r.body.appID).toMatch(/^app_[0-9a-f]{16}$/);
    expect(r.body.appToken).toMatch(/^[\w-]{43}$/);
    const listed = await t.call("GET", "/applications?appName_like=ET", undefined, admin);
    expect(listed.body.items.map((a: { appID: string }) => a.appID)).toEqual([r.body.appID]);
    const detail = await t.call("GET", `/applications/${r.body.id}`, undefined, admin);
    for (const body of [listed.body, detail.body]) {
      expect(JSON.stringify(body)).not.toContain(r.body.appToken);
      expect(JSON.stringify(body)).not.toMatch(/appToken|Hash/);
    }
  });

  it("work as Basic credentials wherever a bearer token does, acting as their tenant with their role", async () => {
    const ops = (await t.call("POST", "/applications", { appName: "ops", role: "operator" }, admin)).body;
    const created = await t.call(
      "POST",
      "/products",
      { productName: "By key", cloudProtocol: 1 },
      undefined,
      withKey(ops),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ userIntID: 1, tenantID: ops.tenantID });
    const read = (await t.call("POST", "/applications", { appName: "reader" }, admin)).body;
    expect((await t.call("GET", `/products/${created.body.id}`, undefined, undefined, withKey(read))).status).toBe(200);
    const refused = await t.call(
      "POST",
      "/products",
      { productName: "nope", cloudProtocol: 1 },
      undefined,
      withKey(read),
    );
    expect(refused.status).toBe(403);
    expect(refused.body.errorCode).toBe("PERMISSION_DENIED");
    // The key's tenant is its creator's: another tenant's admin does not see the product.
    expect((await t.call("GET", `/products/${created.body.id}`, undefined, acmeAdmin)).status).toBe(404);
  });

  it("stop working at once when disabled, expired or deleted", async () => {
    const key = (await t.call("POST", "/applications", { appName: "short-lived" }, admin)).body;
    const get = () => t.call("GET", "/products", undefined, undefined, withKey(key));
    expect((await get()).status).toBe(200);
    expect((await t.call("PUT", `/applications/${key.id}`, { ...key, enable: 0 }, admin)).body.enable).toBe(0);
    expect((await get()).status).toBe(401);
    await t.call("PUT", `/applications/${key.id}`, { enable: 1 }, admin);
    expect((await get()).status).toBe(200);
    await t.store.db
      .updateTable("applications")
      .set({ expiresAt: Date.now() - 1 })
      .where("id", "=", key.id)
      .execute();
    const expired = await get();
    expect(expired.status).toBe(401);
    expect(expired.body.errorCode).toBe("AUTH_FAILED");
    await t.store.db.updateTable("applications").set({ expiresAt: null }).where("id", "=", key.id).execute();
    expect((await get()).status).toBe(200);
    expect((await t.call("DELETE", `/applications?ids=${key.id}`, undefined, admin)).status).toBe(204);
    expect((await get()).status).toBe(401);
    expect((await t.call("GET", `/applications/${key.id}`, undefined, admin)).status).toBe(404);
  });

  it("refuse a wrong token, an unknown appID and a malformed Authorization header with 401 AUTH_FAILED", async () => {
    const key = (await t.call("POST", "/applications", { appName: "k" }, admin)).body;
    for (const authorization of [
      basic(key.appID, `${key.appToken}x`).authorization,
      basic("app_0000000000000000", key.appToken).authorization,
      "Basic !!!",
      `Basic ${Buffer.from("no-colon").toString("base64")}`,
      `${basic(key.appID, key.appToken).authorization}=`, // not canonical base64, though Node would decode it
      `${basic(key.appID, key.appToken).authorization.replace(/^Basic /, "Basic *")}`,
      `Token ${key.appToken}`,
    ]) {
      const r = await t.call("GET", "/products", undefined, undefined, { authorization });
      expect(r.status, authorization).toBe(401);
      expect(r.body.errorCode).toBe("AUTH_FAILED");
    }
  });

  it("refuse an expiry in the past or not in YYYY-MM-DD HH:MM:SS, and an unknown role, naming the field", async () => {
    const past = await t.call("POST", "/applications", { appName: "x", expiresAt: "2001-01-01 00:00:00" }, admin);
    expect(past.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { expiresAt: "must be in the future" } });
    const bad = await t.call(
      "POST",
      "/applications",
      { appName: "x", expiresAt: "2999-02-30 00:00:00", role: "root" },
      admin,
    );
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["expiresAt", "role"]);
    expect((await t.call("POST", "/applications", {}, admin)).body).toMatchObject({
      errorCode: "FORM_INVALID",
      errors: { appName: expect.any(String) },
    });
  });

  it("refuse a member the create does not take (a misspelt role) with FORM_INVALID naming it, creating nothing", async () => {
    const before = (await t.call("GET", "/applications", undefined, admin)).body.meta.count;
    const r = await t.call("POST", "/applications", { appName: "typo", roleIntID: 1 }, admin);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      errorCode: "FORM_INVALID",
      message: "Form invalid",
      errors: { roleIntID: "unknown field" },
    });
    expect((await t.call("GET", "/applications", undefined, admin)).body.meta.count).toBe(before);
  });

  it("are managed by admins only: operators, viewers and non-admin keys get 403 and create nothing", async () => {
    const before = (await t.call("GET", "/applications", undefined, admin)).body.meta.count;
    const opKey = (await t.call("POST", "/applications", { appName: "op-key", role: "operator" }, admin)).body;
    for (const auth of [
      { authorization: `Bearer ${operator}` },
      { authorization: `Bearer ${viewer}` },
      withKey(opKey),
    ]) {
      for (const [method, path, body] of [
        ["GET", "/applications"],
        ["GET", `/applications/${opKey.id}`],
        ["POST", "/applications", { appName: "sneaky", role: "admin" }],
        ["PUT", `/applications/${opKey.id}`, { role: "admin" }],
        ["DELETE", `/applications?ids=${opKey.id}`],
      ] as const) {
        const r = await t.call(method, path, body, undefined, auth);
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(r.body.errorCode).toBe("PERMISSION_DENIED");
      }
    }
    const after = await t.call("GET", "/applications?_limit=1000", undefined, admin);
    expect(after.body.meta.count).toBe(before + 1);
    expect(after.body.items.find((a: { id: number }) => a.id === opKey.id).role).toBe("operator");
  });

  it("let an admin key manage keys up to admin, recording the key's creator", async () => {
    const adminKey = (await t.call("POST", "/applications", { appName: "provisioner", role: "admin" }, admin)).body;
    const child = await t.call(
      "POST",
      "/applications",
      { appName: "child", role: "admin" },
      undefined,
      withKey(adminKey),
    );
    expect(child.status).toBe(201);
    expect(child.body).toMatchObject({ role: "admin", userIntID: 1, tenantID: adminKey.tenantID });
  });

  it("are invisible to other tenants: 404 on detail and edit, absent from lists, untouched by their deletes", async () => {
    const key = (await t.call("POST", "/applications", { appName: "private" }, admin)).body;
    expect((await t.call("GET", `/applications/${key.id}`, undefined, acmeAdmin)).status).toBe(404);
    expect((await t.call("PUT", `/applications/${key.id}`, { enable: 0 }, acmeAdmin)).status).toBe(404);
    expect((await t.call("GET", "/applications", undefined, acmeAdmin)).body.meta.count).toBe(0);
    expect((await t.call("DELETE", `/applications?ids=${key.id}`, undefined, acmeAdmin)).status).toBe(204);
    expect((await t.call("GET", "/products", undefined, undefined, withKey(key))).status).toBe(200);
  });
});

describe("tenants", () => {
  it("are created by the service administrator with a generated tenantID, and listed", async () => {
    const r = await t.call("POST", "/tenants", { tenantName: "Globex" }, admin);
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([
      "createAt",
      "enable",
      "id",
      "maxConnections",
      "maxDevices",
      "maxUplinkRate",
      "tenantID",
      "tenantName",
      "updateAt",
    ]);
    expect(r.body).toMatchObject({ tenantName: "Globex", enable: 1, updateAt: null, maxDevices: 0 });
    expect(r.body.tenantID).toMatch(/^[A-Za-z0-9]{10}$/);
    const list = await t.call("GET", "/tenants?_limit=1000", undefined, admin);
    expect(list.body.items.map((x: { tenantName: string }) => x.tenantName)).toEqual(
      expect.arrayContaining(["T1", "Acme", "Globex"]),
    );
    expect((await t.call("GET", "/tenants?tenantName_like=glob", undefined, admin)).body.items).toHaveLength(1);
  });

  it("are refused to everyone but the service administrator with 403, tenant admins and admin keys included", async () => {
    const adminKey = (await t.call("POST", "/applications", { appName: "tenant-try", role: "admin" }, admin)).body;
    const before = (await t.call("GET", "/tenants", undefined, admin)).body.meta.count;
    for (const auth of [
      { authorization: `Bearer ${acmeAdmin}` },
      { authorization: `Bearer ${operator}` },
      withKey(adminKey),
    ]) {
      for (const [method, body] of [["GET"], ["POST", { tenantName: "Nope" }]] as const) {
        const r = await t.call(method, "/tenants", body, undefined, auth);
        expect(r.status).toBe(403);
        expect(r.body.errorCode).toBe("PERMISSION_DENIED");
      }
    }
    expect((await t.call("GET", "/tenants", undefined, admin)).body.meta.count).toBe(before);
  });
});
