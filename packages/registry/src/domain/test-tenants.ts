/**
 * Test support (not a test file): a fresh store on an engine with two
 * tenants — the caller's (tenant created by the first-start bootstrap, user
 * root) and "other" (user eve) — for tests of tenant scoping.
 */
import type { EngineUnderTest } from "../store/test-engines.js";
import { bootstrapAdmin } from "./bootstrap.js";
import type { Caller } from "./caller.js";

export async function twoTenants(engine: EngineUnderTest) {
  const { store, place } = await engine.open();
  const db = store.db;
  const boot = await bootstrapAdmin(db, { username: "root", password: "pw-1234567", tenantName: "T" });
  const caller: Caller = {
    userIntId: 1,
    username: "root",
    tenantId: boot.tenantId!,
    role: "admin",
    serviceAdmin: true,
  };
  await db
    .insertInto("tenants")
    .values({ tenantId: "other", tenantName: "O", enable: 1, createAt: 0, updateAt: null })
    .execute();
  const u = await db
    .insertInto("users")
    .values({
      tenantId: "other",
      username: "eve",
      email: null,
      passwordHash: "x",
      role: "admin",
      serviceAdmin: 0,
      enable: 1,
      createAt: 0,
      updateAt: null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const other: Caller = { userIntId: u.id, username: "eve", tenantId: "other", role: "admin", serviceAdmin: false };
  return { store, place, db, caller, other };
}
