import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testApp } from "./test-app.js";

let t: Awaited<ReturnType<typeof testApp>>;
let admin: string;
let tenantID: string;
let acmeTenantID: string;
/** Admin of the second tenant, "Acme". */
let acmeAdmin: string;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  t = await testApp();
  admin = await t.login();
  tenantID = (await t.call("GET", "/users/1", undefined, admin)).body.tenantID;
  acmeTenantID = (await t.call("POST", "/tenants", { tenantName: "Acme" }, admin)).body.tenantID;
  await t.call(
    "POST",
    "/users",
    { username: "acme-admin", password: "acme-pass-1", role: "admin", tenantID: acmeTenantID },
    admin,
  );
  acmeAdmin = await t.login("acme-admin", "acme-pass-1");
});
afterAll(() => t.close());

describe("users", () => {
  it("are created with 201 in the caller's tenant, can log in, and no answer ever holds a password or hash", async () => {
    const r = await t.call(
      "POST",
      "/users",
      { username: "alice", password: "alice-pass", role: "operator", email: "alice@example.com" },
      admin,
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      username: "alice",
      email: "alice@example.com",
      role: "operator",
      enable: 1,
      serviceAdmin: false,
      tenantID,
      updateAt: null,
    });
    expect((await t.call("POST", "/login", { email: "alice@example.com", password: "alice-pass" })).body).toMatchObject(
      { role: "operator", tenantID },
    );
    const answers = [
      r.body,
      (await t.call("GET", "/users", undefined, admin)).body,
      (await t.call("GET", `/users/${r.body.id}`, undefined, admin)).body,
    ];
    for (const body of answers) expect(JSON.stringify(body)).not.toMatch(/password|scrypt|alice-pass/i);
  });

  it("reject a short password, an unknown role, a bad e-mail and an @ in the username, naming each field", async () => {
    const r = await t.call(
      "POST",
      "/users",
      { username: "bob@x", password: "short", role: "root", email: "not-mail" },
      admin,
    );
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe("FORM_INVALID");
    expect(Object.keys(r.body.errors).sort()).toEqual(["email", "password", "role", "username"]);
    expect(r.body.errors.password).toBe("at least 8 characters");
  });

  it("reject a taken username or e-mail with 400 DATA_EXISTED naming the field, across tenants too", async () => {
    await t.call(
      "POST",
      "/users",
      { username: "carol", password: "carol-pass", role: "viewer", email: "carol@example.com" },
      admin,
    );
    const sameName = await t.call(
      "POST",
      "/users",
      { username: "carol", password: "carol-pass", role: "viewer" },
      acmeAdmin,
    );
    expect(sameName.status).toBe(400);
    expect(sameName.body).toMatchObject({ errorCode: "DATA_EXISTED", errors: { username: "already exists" } });
    const sameMail = await t.call(
      "POST",
      "/users",
      { username: "carol2", password: "carol-pass", role: "viewer", email: "carol@example.com" },
      admin,
    );
    expect(sameMail.body).toMatchObject({ errorCode: "DATA_EXISTED", errors: { email: "already exists" } });
    const other = (await t.call("POST", "/users", { username: "dave", password: "dave-pass-1", role: "viewer" }, admin))
      .body;
    const edit = await t.call("PUT", `/users/${other.id}`, { email: "carol@example.com" }, admin);
    expect(edit.body).toMatchObject({ errorCode: "DATA_EXISTED", errors: { email: "already exists" } });
  });

  it("let a tenant admin create users only in its own tenant, and the service admin in any existing one", async () => {
    const own = await t.call(
      "POST",
      "/users",
      { username: "acme-op", password: "acme-op-pass", role: "operator" },
      acmeAdmin,
    );
    expect(own.body.tenantID).toBe(acmeTenantID);
    const foreign = await t.call(
      "POST",
      "/users",
      { username: "intruder", password: "intruder-pass", role: "admin", tenantID },
      acmeAdmin,
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body.errorCode).toBe("PERMISSION_DENIED");
    const unknown = await t.call(
      "POST",
      "/users",
      { username: "lost", password: "lost-pass-1", role: "viewer", tenantID: "NoSuchTen1" },
      admin,
    );
    expect(unknown.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { tenantID: "no such tenant" } });
    const placed = await t.call(
      "POST",
      "/users",
      { username: "acme-viewer", password: "acme-view-1", role: "viewer", tenantID: acmeTenantID },
      admin,
    );
    expect(placed.status).toBe(201);
    expect(placed.body.tenantID).toBe(acmeTenantID);
    const names = (await t.call("GET", "/users?_limit=1000", undefined, acmeAdmin)).body.items.map(
      (u: { username: string }) => u.username,
    );
    expect(names).toEqual(expect.arrayContaining(["acme-admin", "acme-op", "acme-viewer"]));
    expect(names).not.toContain("intruder");
  });

  it("of another tenant answer 404 on every verb, are absent from lists, and their delete deletes nothing", async () => {
    const mine = (await t.call("POST", "/users", { username: "erin", password: "erin-pass-1", role: "viewer" }, admin))
      .body;
    for (const [method, body] of [["GET"], ["PUT", { role: "admin" }]] as const) {
      const r = await t.call(method, `/users/${mine.id}`, body, acmeAdmin);
      expect(r.status, method).toBe(404);
      expect(r.body.errorCode).toBe("DATA_NOT_FOUND");
    }
    const list = await t.call("GET", "/users?_limit=1000&username_like=erin", undefined, acmeAdmin);
    expect(list.body.meta.count).toBe(0);
    expect((await t.call("DELETE", `/users?ids=${mine.id}`, undefined, acmeAdmin)).status).toBe(204);
    expect((await t.call("GET", `/users/${mine.id}`, undefined, admin)).body.role).toBe("viewer");
    expect(
      (await t.call("GET", "/users?username_like=ERI", undefined, admin)).body.items.map(
        (u: { username: string }) => u.username,
      ),
    ).toEqual(["erin"]);
  });

  it("are edited in role, e-mail, password and enable, ignoring read-only fields in the body", async () => {
    const u = (await t.call("POST", "/users", { username: "frank", password: "frank-pass", role: "viewer" }, admin))
      .body;
    const r = await t.call(
      "PUT",
      `/users/${u.id}`,
      {
        ...u,
        serviceAdmin: true,
        role: "operator",
        email: "frank@example.com",
        password: "frank-new-pass",
      },
      admin,
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: u.id,
      username: "frank",
      tenantID,
      serviceAdmin: false,
      role: "operator",
      email: "frank@example.com",
    });
    expect(r.body.updateAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect((await t.call("POST", "/login", { username: "frank", password: "frank-new-pass" })).status).toBe(201);
  });

  it("refuse an edit that renames them or moves them to another tenant, or a bad username, naming the field", async () => {
    const u = (await t.call("POST", "/users", { username: "grace", password: "grace-pass", role: "viewer" }, admin))
      .body;
    for (const [body, field, message] of [
      [{ username: "renamed" }, "username", "cannot be changed"],
      [{ tenantID: acmeTenantID }, "tenantID", "cannot be changed"],
      [{ username: "a@b" }, "username", "letters, digits, _ . - only"],
    ] as const) {
      const r = await t.call("PUT", `/users/${u.id}`, { ...body, role: "operator" }, admin);
      expect(r.status, field).toBe(400);
      expect(r.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { [field]: message } });
    }
    expect((await t.call("GET", `/users/${u.id}`, undefined, admin)).body).toMatchObject({
      username: "grace",
      role: "viewer",
    });
  });

  it("lose their tokens at once when disabled or deleted", async () => {
    await t.call("POST", "/users", { username: "gina", password: "gina-pass-1", role: "operator" }, admin);
    const token = await t.login("gina", "gina-pass-1");
    const id = (await t.call("GET", "/users?username_like=gina", undefined, admin)).body.items[0].id;
    expect((await t.call("GET", "/products", undefined, token)).status).toBe(200);
    await t.call("PUT", `/users/${id}`, { enable: 0 }, admin);
    expect((await t.call("GET", "/products", undefined, token)).status).toBe(401);
    await t.call("PUT", `/users/${id}`, { enable: 1 }, admin);
    expect((await t.call("GET", "/products", undefined, token)).status).toBe(200);
    expect((await t.call("DELETE", `/users?ids=${id}`, undefined, admin)).status).toBe(204);
    const after = await t.call("GET", "/products", undefined, token);
    expect(after.status).toBe(401);
    expect(after.body.errorCode).toBe("AUTH_FAILED");
    expect((await t.call("GET", `/users/${id}`, undefined, admin)).status).toBe(404);
  });

  it("are refused 401 AUTH_FAILED with a token tampered with, unsigned (alg none) or signed with another secret", async () => {
    const [header, payload] = (await t.login()).split(".") as [string, string];
    const b64url = (s: string) => Buffer.from(s).toString("base64url");
    const mac = (secret: string, body: string) => createHmac("sha256", secret).update(body).digest("base64url");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
    const raised = b64url(JSON.stringify({ ...claims, sub: 2 }));
    const none = b64url(JSON.stringify({ alg: "none", typ: "JWT" }));
    for (const token of [
      `${header}.${raised}.${mac("test-secret", `${header}.${payload}`)}`,
      `${none}.${payload}.`,
      `${header}.${payload}.${mac("another-secret", `${header}.${payload}`)}`,
    ]) {
      const r = await t.call("GET", "/products", undefined, undefined, bearer(token));
      expect(r.status, token).toBe(401);
      expect(r.body.errorCode).toBe("AUTH_FAILED");
    }
    const same = `${header}.${payload}.${mac("test-secret", `${header}.${payload}`)}`;
    expect((await t.call("GET", "/products", undefined, undefined, bearer(same))).status).toBe(200);
  });

  it("lose their other tokens when their password or role changes; changing your own keeps the token you used", async () => {
    const ida = (await t.call("POST", "/users", { username: "ida", password: "ida-pass-1", role: "operator" }, admin))
      .body.id as number;
    const [one, two] = [await t.login("ida", "ida-pass-1"), await t.login("ida", "ida-pass-1")];
    const status = async (token: string) => (await t.call("GET", "/products", undefined, token)).status;
    expect([await status(one), await status(two)]).toEqual([200, 200]);
    await t.call("PUT", `/users/${ida}`, { password: "ida-pass-2" }, admin);
    expect([await status(one), await status(two)]).toEqual([401, 401]);
    const three = await t.login("ida", "ida-pass-2");
    await t.call("PUT", `/users/${ida}`, { role: "viewer" }, admin);
    expect(await status(three)).toBe(401);
    const four = await t.login("ida", "ida-pass-2");
    expect((await t.call("GET", "/products", undefined, four)).status).toBe(200);

    await t.call("POST", "/users", { username: "jo", password: "jo-pass-11", role: "admin" }, admin);
    const [used, other] = [await t.login("jo", "jo-pass-11"), await t.login("jo", "jo-pass-11")];
    const me = (await t.call("GET", "/users?username_like=jo", undefined, used)).body.items[0].id as number;
    expect((await t.call("PUT", `/users/${me}`, { password: "jo-pass-22" }, used)).status).toBe(200);
    expect([await status(used), await status(other)]).toEqual([200, 401]);
    expect((await t.call("GET", "/products", undefined, await t.login("jo", "jo-pass-22"))).status).toBe(200);
  });

  it("may not delete, disable or demote themselves: 400 FORM_INVALID naming the field, nothing deleted", async () => {
    const victim = (
      await t.call("POST", "/users", { username: "hank", password: "hank-pass-1", role: "viewer" }, admin)
    ).body;
    const self = await t.call("DELETE", `/users?ids=${victim.id},1`, undefined, admin);
    expect(self.status).toBe(400);
    expect(self.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { ids: "cannot delete your own account" } });
    expect((await t.call("GET", `/users/${victim.id}`, undefined, admin)).status).toBe(200);
    expect((await t.call("PUT", "/users/1", { enable: 0 }, admin)).body).toMatchObject({
      errorCode: "FORM_INVALID",
      errors: { enable: expect.any(String) },
    });
    expect((await t.call("PUT", "/users/1", { role: "viewer" }, admin)).body).toMatchObject({
      errorCode: "FORM_INVALID",
      errors: { role: expect.any(String) },
    });
    expect((await t.call("GET", "/users/1", undefined, admin)).body).toMatchObject({ role: "admin", enable: 1 });
  });

  it("are managed by admins only: operators and viewers get 403 on every verb and change nothing", async () => {
    await t.call("POST", "/users", { username: "oscar", password: "oscar-pass", role: "operator" }, admin);
    await t.call("POST", "/users", { username: "vera", password: "vera-pass-1", role: "viewer" }, admin);
    const target = (await t.call("GET", "/users?username_like=vera", undefined, admin)).body.items[0];
    for (const token of [await t.login("oscar", "oscar-pass"), await t.login("vera", "vera-pass-1")]) {
      for (const [method, path, body] of [
        ["GET", "/users"],
        ["GET", `/users/${target.id}`],
        ["POST", "/users", { username: "mallory", password: "mallory-pass", role: "admin" }],
        ["PUT", `/users/${target.id}`, { role: "admin" }],
        ["DELETE", `/users?ids=${target.id}`],
      ] as const) {
        const r = await t.call(method, path, body, undefined, bearer(token));
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(r.body.errorCode).toBe("PERMISSION_DENIED");
      }
    }
    expect((await t.call("GET", `/users/${target.id}`, undefined, admin)).body.role).toBe("viewer");
    expect((await t.call("GET", "/users?username_like=mallory", undefined, admin)).body.meta.count).toBe(0);
  });
});
