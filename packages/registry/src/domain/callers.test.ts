import { afterAll, describe, expect, it } from "vitest";
import type { TokenClaims } from "../auth/token-claims.js";
import { engines } from "../store/test-engines.js";
import {
  callerFromAppKey,
  createApplication,
  deleteApplications,
  getApplication,
  listApplications,
  updateApplication,
} from "./applications.js";
import { bootstrapAdmin } from "./bootstrap.js";
import type { Caller } from "./caller.js";
import { createTenant, listTenants } from "./tenants.js";
import {
  callerFromClaims,
  createUser,
  deleteUsers,
  getUser,
  listUsers,
  login,
  roleAtLeast,
  updateUser,
} from "./users.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const page = { page: 1, limit: 100 };

describe.each(engines)("callers on $name", (engine) => {
  async function setup() {
    const { store } = await engine.open();
    const boot = await bootstrapAdmin(store.db, { username: "root", password: "pw-1234567", tenantName: "T" });
    const root: Caller = {
      userIntId: 1,
      username: "root",
      tenantId: boot.tenantId!,
      role: "admin",
      serviceAdmin: true,
    };
    const other = await createTenant(store.db, { tenantName: "Other" });
    const otherAdminUser = await createUser(store.db, root, {
      username: "oadmin",
      password: "pw-1234567",
      role: "admin",
      tenantId: other.tenantId,
    });
    const otherAdmin: Caller = {
      userIntId: otherAdminUser.id,
      username: "oadmin",
      tenantId: other.tenantId,
      role: "admin",
      serviceAdmin: false,
    };
    return { db: store.db, root, other, otherAdmin };
  }

  it("ranks admin above operator above viewer", () => {
    expect(roleAtLeast("admin", "operator")).toBe(true);
    expect(roleAtLeast("operator", "admin")).toBe(false);
    expect(roleAtLeast("viewer", "viewer")).toBe(true);
  });

  it("creates tenants with a generated 10-character tenantID and lists them newest first", async () => {
    const { db, other } = await setup();
    expect(other.tenantId).toMatch(/^[A-Za-z0-9]{10}$/);
    expect(other).toMatchObject({ tenantName: "Other", enable: 1, updateAt: null });
    const all = await listTenants(db, page);
    expect(all.items.map((t) => t.tenantName)).toEqual(["Other", "T"]);
    expect((await listTenants(db, page, { tenantNameLike: "oth" })).count).toBe(1);
  });

  it("lets the service admin create users in an existing tenant, and refuses an unknown one naming tenantID", async () => {
    const { db, root, other } = await setup();
    const u = await createUser(db, root, {
      username: "op",
      password: "pw-1234567",
      role: "operator",
      tenantId: other.tenantId,
      email: "op@x.io",
    });
    expect(u).toMatchObject({
      username: "op",
      tenantId: other.tenantId,
      role: "operator",
      email: "op@x.io",
      serviceAdmin: 0,
      enable: 1,
    });
    expect(u).not.toHaveProperty("passwordHash");
    await expect(
      createUser(db, root, { username: "z", password: "pw-1234567", role: "viewer", tenantId: "nope" }),
    ).rejects.toMatchObject({ code: "FORM_INVALID", errors: { tenantID: "no such tenant" } });
  });

  it("keeps a tenant admin's new users in its own tenant", async () => {
    const { db, root, otherAdmin } = await setup();
    const u = await createUser(db, otherAdmin, { username: "mine", password: "pw-1234567", role: "viewer" });
    expect(u.tenantId).toBe(otherAdmin.tenantId);
    await expect(
      createUser(db, otherAdmin, { username: "x", password: "pw-1234567", role: "viewer", tenantId: root.tenantId }),
    ).rejects.toMatchObject({ code: "PERMISSION_DENIED" });
  });

  it("refuses a taken username or e-mail with DATA_EXISTED naming the field", async () => {
    const { db, root, otherAdmin } = await setup();
    await createUser(db, root, { username: "a1", password: "pw-1234567", role: "viewer", email: "a@x.io" });
    await expect(
      createUser(db, otherAdmin, { username: "a1", password: "pw-1234567", role: "viewer" }),
    ).rejects.toMatchObject({ code: "DATA_EXISTED", errors: { username: "already exists" } });
    await expect(
      createUser(db, otherAdmin, { username: "a2", password: "pw-1234567", role: "viewer", email: "a@x.io" }),
    ).rejects.toMatchObject({ code: "DATA_EXISTED", errors: { email: "already exists" } });
    const b = await createUser(db, root, { username: "b1", password: "pw-1234567", role: "viewer" });
    await expect(updateUser(db, root, b.id, { email: "a@x.io" })).rejects.toMatchObject({
      code: "DATA_EXISTED",
      errors: { email: "already exists" },
    });
  });

  it("scopes user reads, edits and deletes to the caller's tenant", async () => {
    const { db, root, otherAdmin } = await setup();
    const mine = await createUser(db, root, { username: "m", password: "pw-1234567", role: "viewer" });
    expect((await listUsers(db, otherAdmin, page)).items.map((u) => u.username)).toEqual(["oadmin"]);
    expect((await listUsers(db, root, page, { usernameLike: "M" })).items.map((u) => u.username)).toEqual(["m"]);
    await expect(getUser(db, otherAdmin, mine.id)).rejects.toMatchObject({ code: "DATA_NOT_FOUND" });
    await expect(updateUser(db, otherAdmin, mine.id, { role: "admin" })).rejects.toMatchObject({
      code: "DATA_NOT_FOUND",
    });
    await deleteUsers(db, otherAdmin, [mine.id]);
    expect((await getUser(db, root, mine.id)).role).toBe("viewer");
  });

  it("edits role, e-mail, enable and password, and a disabled or deleted user's token fails at once", async () => {
    const { db, root } = await setup();
    const u = await createUser(db, root, { username: "ed", password: "pw-1234567", role: "viewer" });
    const edited = await updateUser(db, root, u.id, { role: "operator", email: "ed@x.io", password: "new-pass-99" }, 5);
    expect(edited).toMatchObject({ role: "operator", email: "ed@x.io", updateAt: 5 });
    const { claims } = await login(db, { username: "ed", password: "new-pass-99" }, 60);
    expect((await callerFromClaims(db, claims)).role).toBe("operator");
    await updateUser(db, root, u.id, { enable: 0 });
    await expect(callerFromClaims(db, claims)).rejects.toMatchObject({ code: "AUTH_FAILED" });
    await updateUser(db, root, u.id, { enable: 1 });
    await deleteUsers(db, root, [u.id]);
    await expect(callerFromClaims(db, claims)).rejects.toMatchObject({ code: "AUTH_FAILED" });
  });

  it("ends a user's other tokens when its password or role changes, keeping the one that changed its own password", async () => {
    const { db, root } = await setup();
    const u = await createUser(db, root, { username: "tok", password: "pw-1234567", role: "operator" });
    const issue = async (username = "tok", password = "pw-1234567") =>
      (await login(db, { username, password }, 60)).claims;
    const works = (claims: TokenClaims) =>
      callerFromClaims(db, claims).then(
        () => true,
        (err: unknown) => (expect(err).toMatchObject({ code: "AUTH_FAILED" }), false),
      );
    const [a, b] = [await issue(), await issue()];
    expect(a.jti).not.toBe(b.jti);
    await updateUser(db, root, u.id, { email: "tok@x.io", enable: 1 });
    expect([await works(a), await works(b)]).toEqual([true, true]);
    await updateUser(db, root, u.id, { password: "pw-7654321" });
    expect([await works(a), await works(b)]).toEqual([false, false]);
    const c = await issue("tok", "pw-7654321");
    await updateUser(db, root, u.id, { role: "operator" }); // the same role: nothing ends
    expect(await works(c)).toBe(true);
    await updateUser(db, root, u.id, { role: "viewer" });
    expect(await works(c)).toBe(false);

    // An admin changing its own password keeps the token it did it with; its other tokens end.
    const self = await createUser(db, root, { username: "self", password: "pw-1234567", role: "admin" });
    const [mine, elsewhere] = [await issue("self"), await issue("self")];
    const me = await callerFromClaims(db, mine);
    expect(me.tokenId).toEqual(expect.any(String));
    await updateUser(db, me, self.id, { password: "pw-7654321" });
    expect([await works(mine), await works(elsewhere)]).toEqual([true, false]);
    const fresh = await issue("self", "pw-7654321");
    expect(await works(fresh)).toBe(true);
    // Someone else's change then ends that kept token too.
    await updateUser(db, root, self.id, { password: "pw-0000000" });
    expect([await works(mine), await works(fresh)]).toEqual([false, false]);
  });

  it("accepts tokens issued before generations existed until the user's first password or role change", async () => {
    const { db, root } = await setup();
    const u = await createUser(db, root, { username: "old", password: "pw-1234567", role: "viewer" });
    const legacy = { sub: u.id, tenantId: root.tenantId, role: "viewer", exp: 4_000_000_000 };
    expect((await callerFromClaims(db, legacy)).username).toBe("old");
    await updateUser(db, root, u.id, { password: "pw-7654321" });
    await expect(callerFromClaims(db, legacy)).rejects.toMatchObject({ code: "AUTH_FAILED" });
  });

  it("refuses to delete, disable or demote yourself or the service administrator", async () => {
    const { db, root } = await setup();
    const admin2 = await createUser(db, root, { username: "a2", password: "pw-1234567", role: "admin" });
    const caller2: Caller = {
      userIntId: admin2.id,
      username: "a2",
      tenantId: root.tenantId,
      role: "admin",
      serviceAdmin: false,
    };
    await expect(deleteUsers(db, caller2, [admin2.id])).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { ids: "cannot delete your own account" },
    });
    await expect(deleteUsers(db, caller2, [1])).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { ids: "cannot delete the service administrator" },
    });
    await expect(updateUser(db, caller2, admin2.id, { enable: 0 })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { enable: "cannot disable your own account" },
    });
    await expect(updateUser(db, caller2, 1, { role: "viewer" })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { role: "cannot change the role of the service administrator" },
    });
    expect((await updateUser(db, caller2, admin2.id, { role: "admin", email: "me@x.io" })).email).toBe("me@x.io");
    expect((await listUsers(db, root, page)).count).toBe(2);
  });

  it("issues an application key whose token is stored only as its SHA-256 hash", async () => {
    const { db, root } = await setup();
    const { application: app, appToken } = await createApplication(db, root, { appName: "etl", description: "d" });
    expect(app.appId).toMatch(/^app_[0-9a-f]{16}$/);
    expect(appToken).toMatch(/^[\w-]{43}$/);
    expect(app).toMatchObject({ role: "viewer", enable: 1, expiresAt: null, userIntId: 1, tenantId: root.tenantId });
    expect(app).not.toHaveProperty("appTokenHash");
    const row = await db.selectFrom("applications").selectAll().where("id", "=", app.id).executeTakeFirstOrThrow();
    expect(row.appTokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(appToken);
    expect(await callerFromAppKey(db, app.appId, appToken)).toEqual({
      userIntId: 1,
      username: "app:etl",
      tenantId: root.tenantId,
      role: "viewer",
      serviceAdmin: false,
    });
    await expect(callerFromAppKey(db, app.appId, `${appToken}x`)).rejects.toMatchObject({ code: "AUTH_FAILED" });
  });

  it("never gives a key more power than its creator, and never an expiry in the past", async () => {
    const { db, root } = await setup();
    const operator: Caller = { ...root, role: "operator", serviceAdmin: false };
    await expect(createApplication(db, operator, { appName: "x", role: "admin" })).rejects.toMatchObject({
      code: "PERMISSION_DENIED",
    });
    expect((await createApplication(db, operator, { appName: "x", role: "operator" })).application.role).toBe(
      "operator",
    );
    await expect(createApplication(db, root, { appName: "x", expiresAt: 1_000 }, 2_000)).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { expiresAt: "must be in the future" },
    });
  });

  it("stops a key at once when it is disabled, expired or deleted", async () => {
    const { db, root } = await setup();
    const { application: app, appToken } = await createApplication(
      db,
      root,
      { appName: "k", role: "operator", expiresAt: 10_000 },
      1_000,
    );
    expect((await callerFromAppKey(db, app.appId, appToken, 9_999)).role).toBe("operator");
    await expect(callerFromAppKey(db, app.appId, appToken, 10_000)).rejects.toMatchObject({ code: "AUTH_FAILED" });
    await updateApplication(db, root, app.id, { expiresAt: null, enable: 0 });
    await expect(callerFromAppKey(db, app.appId, appToken)).rejects.toMatchObject({ code: "AUTH_FAILED" });
    await updateApplication(db, root, app.id, { enable: 1 });
    expect((await callerFromAppKey(db, app.appId, appToken)).username).toBe("app:k");
    await deleteApplications(db, root, [app.id]);
    await expect(callerFromAppKey(db, app.appId, appToken)).rejects.toMatchObject({ code: "AUTH_FAILED" });
  });

  it("scopes keys to their tenant: other tenants neither list, read nor delete them", async () => {
    const { db, root, otherAdmin } = await setup();
    const { application: app } = await createApplication(db, root, { appName: "mine" });
    expect((await listApplications(db, otherAdmin, page)).count).toBe(0);
    expect((await listApplications(db, root, page, { appNameLike: "IN" })).items.map((a) => a.appName)).toEqual([
      "mine",
    ]);
    await expect(getApplication(db, otherAdmin, app.id)).rejects.toMatchObject({ code: "DATA_NOT_FOUND" });
    await deleteApplications(db, otherAdmin, [app.id]);
    expect((await getApplication(db, root, app.id)).appName).toBe("mine");
  });
});
