/** Test support (not a test file): the log and alert tests' two tenants, with a product and devices of each. */
import { createDevice } from "@iot/registry";
import { meterProducts, twoTenants } from "./test-tenants.js";

/**
 * Two tenants in `form` (see `twoTenants`), the product "Meter" with devices "Meter 100%" (`meter`) and "valve" of the
 * first, and eve's product with its device "eve meter" (`eveDevice`).
 */
export async function logsFixture(form: "1" | "2") {
  const tenants = await twoTenants(form);
  const { t, admin, eve } = tenants;
  const { productID, eveProductID } = await meterProducts(tenants);
  const device = (deviceName: string, productId = productID, who = admin) =>
    createDevice(t.store.db, who, { productId, deviceName, upLinkSystem: 1, authType: 1 });
  const meter = await device("Meter 100%");
  const valve = await device("valve");
  const eveDevice = await device("eve meter", eveProductID, eve);
  return { ...tenants, productID, eveProductID, meter, valve, eveDevice };
}

/** What `logsFixture` answers. */
export type LogsFixture = Awaited<ReturnType<typeof logsFixture>>;
