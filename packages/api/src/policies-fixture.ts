/** Test support (not a test file): the policy tests' two tenants, with a product of each and ways to add policies. */
import { expect } from "vitest";
import { createDevice } from "@iot/registry";
import { meterProducts, twoTenants } from "./test-tenants.js";

/**
 * Two tenants in `form` (see `twoTenants`) with the products "Meter" (`productID`) and eve's (`eveProductID`), this
 * form's codes of publish, subscribe and both, and helpers that create policies and devices.
 */
export async function policiesFixture(form: "1" | "2") {
  const tenants = await twoTenants(form);
  const { t, token, admin } = tenants;
  const { productID, eveProductID } = await meterProducts(tenants);
  /** Form codes of publish, subscribe and both in this form. */
  const [PUB, SUB, BOTH]: [number, number, number] = form === "1" ? [1, 2, 3] : [0, 1, 2];
  /** Creates a policy on `data/#` (publish and subscribe, allowed) as `as`, expecting 201. */
  const newPolicy = async (name: string, extra: Record<string, unknown> = {}, as = token) => {
    const r = await t.call("POST", "/policies", { name, topic: "data/#", access: BOTH, allow: 1, ...extra }, as);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as { id: number; name: string };
  };
  /** Creates a terminal device of `productId` (default "Meter") directly in the store. */
  const newDevice = async (deviceName: string, productId = productID, who = admin) =>
    (await createDevice(t.store.db, who, { productId, deviceName, upLinkSystem: 1, authType: 1 })) as {
      id: number;
      deviceId: string;
    };
  return { ...tenants, productID, eveProductID, PUB, SUB, BOTH, newPolicy, newDevice };
}

/** What `policiesFixture` answers. */
export type PoliciesFixture = Awaited<ReturnType<typeof policiesFixture>>;

/** The ids of a list answer's items, in order. */
export const idsOf = (body: { items: Array<{ id: number }> }) => body.items.map((x) => x.id);
