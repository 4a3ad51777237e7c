/**
 * Test support (not a test file): an app with two tenants, for the tests of one kind of record that check a tenant
 * sees, changes and deletes only its own.
 */
import type { Caller } from "@iot/registry";
import { testApp } from "./test-app.js";

/**
 * A fresh app in `form` with the first tenant's admin (the service administrator, `token` and `admin`) and its viewer
 * (`viewerToken`), and tenant2's admin eve (`eveToken` and `eve`, user 2).
 */
export async function twoTenants(form: "1" | "2") {
  const t = await testApp(form);
  const token = await t.login();
  const root = await t.store.db.selectFrom("users").selectAll().where("id", "=", 1).executeTakeFirstOrThrow();
  const admin: Caller = {
    userIntId: root.id,
    username: root.username,
    tenantId: root.tenantId,
    role: "admin",
    serviceAdmin: true,
  };
  await t.addTenant("tenant2");
  const { token: eveToken, caller: eve } = await t.addUser("tenant2", "eve", "admin");
  const { token: viewerToken } = await t.addUser(admin.tenantId, "viewer", "viewer");
  return { t, token, admin, eveToken, eve, viewerToken };
}

/** What `twoTenants` answers. */
export type TwoTenants = Awaited<ReturnType<typeof twoTenants>>;

/**
 * Creates a product of each tenant through the API, MQTT with a description (as Form 2 requires): "Meter" of the
 * first tenant and "Eve's" of tenant2. Answers their productIDs.
 */
export async function meterProducts({ t, token, eveToken }: TwoTenants) {
  const productID = (
    await t.call("POST", "/products", { productName: "Meter", cloudProtocol: 1, description: "p" }, token)
  ).body.productID as string;
  const eveProductID = (
    await t.call("POST", "/products", { productName: "Eve's", cloudProtocol: 1, description: "p" }, eveToken)
  ).body.productID as string;
  return { productID, eveProductID };
}
