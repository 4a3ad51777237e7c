/**
 * Test support (not a test file): a CommandRouter on a fresh two-tenant store (see twoTenants) with a product and a
 * maker of its devices, for the router's tests, which each file groups by behaviour.
 */
import type { EngineUnderTest } from "../store/test-engines.js";
import { twoTenants } from "../domain/test-tenants.js";
import { createDevice } from "../domain/devices.js";
import { createProduct } from "../domain/products.js";
import { SessionTable } from "../sessions/session-table.js";
import { CommandRouter } from "./commands.js";

/** The routers' command TTL, ms. */
export const TTL = 60_000;

/**
 * The store, the router (in-flight grace 10 s), its session table, the caller's product, `device(name)` and
 * `statusOf(id)`.
 */
export async function routerSetup(engine: EngineUnderTest) {
  const { store, db, caller, other } = await twoTenants(engine);
  const sessions = new SessionTable();
  const router = new CommandRouter(db, sessions, TTL, { inFlightGraceMs: 10_000 });
  const product = await createProduct(db, caller, { productName: "Valves", cloudProtocol: 1 });
  const device = (deviceName: string) =>
    createDevice(db, caller, {
      productId: product.productId,
      deviceName,
      deviceId: deviceName,
      upLinkSystem: 1,
      authType: 1,
    });
  const statusOf = async (id: number) =>
    (await db.selectFrom("controlLogs").select("publishStatus").where("id", "=", id).executeTakeFirstOrThrow())
      .publishStatus;
  return { store, db, caller, other, sessions, router, product, device, statusOf };
}
