import { afterAll, describe, expect, it } from "vitest";
import { RegistryError } from "../errors.js";
import { engines } from "../store/test-engines.js";
import { createDevice } from "./devices.js";
import { createDevices } from "./create-devices.js";
import { createProduct } from "./products.js";
import { deviceRoom } from "./tenant-quotas.js";
import { createTenant, findTenant, tenantLimits, updateTenant } from "./tenants.js";
import { twoTenants } from "./test-tenants.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("tenant quotas on $name", (engine) => {
  it("creates tenants unlimited (0) unless given limits, and edits each limit alone", async () => {
    const { db } = await twoTenants(engine);
    const plain = await createTenant(db, { tenantName: "Plain" });
    expect(await tenantLimits(db, plain.tenantId)).toEqual({ maxDevices: 0, maxConnections: 0, maxUplinkRate: 0 });
    const capped = await createTenant(db, { tenantName: "Capped", maxDevices: 3, maxUplinkRate: 50 });
    expect(await tenantLimits(db, capped.tenantId)).toEqual({ maxDevices: 3, maxConnections: 0, maxUplinkRate: 50 });
    const edited = await updateTenant(db, capped.id, { maxConnections: 7, maxDevices: undefined }, 1234);
    expect(edited).toMatchObject({ maxDevices: 3, maxConnections: 7, maxUplinkRate: 50, updateAt: 1234 });
    expect((await findTenant(db, capped.tenantId))?.tenantName).toBe("Capped");
    await expect(updateTenant(db, 999_999, { maxDevices: 1 })).rejects.toMatchObject({ code: "DATA_NOT_FOUND" });
  });

  it("refuses a device over maxDevices with FORM_INVALID naming the limit, and counts only the tenant's devices", async () => {
    const { db, caller, other } = await twoTenants(engine);
    const t = (await findTenant(db, caller.tenantId))!;
    await updateTenant(db, t.id, { maxDevices: 2 });
    const lamps = await createProduct(db, caller, { productName: "Lamps", cloudProtocol: 1 });
    const otherLamps = await createProduct(db, other, { productName: "Lamps", cloudProtocol: 1 });
    const lamp = (productId: string, deviceName: string) => ({ productId, deviceName, upLinkSystem: 1, authType: 1 });
    await createDevice(db, other, lamp(otherLamps.productId, "elsewhere-1"));
    await createDevice(db, other, lamp(otherLamps.productId, "elsewhere-2"));
    await createDevice(db, caller, lamp(lamps.productId, "a"));
    await createDevice(db, caller, { productId: lamps.productId, deviceName: "gw", deviceType: 2, authType: 1 });
    const err = await createDevice(db, caller, lamp(lamps.productId, "c")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryError);
    expect(err).toMatchObject({ code: "FORM_INVALID", errors: { maxDevices: expect.stringMatching(/limit of 2/) } });
    expect(await deviceRoom(db, caller.tenantId)).toBe(0);
    // The other tenant has no limit.
    await createDevice(db, other, lamp(otherLamps.productId, "elsewhere-3"));
    // Raising the limit makes room again; 0 lifts it.
    await updateTenant(db, t.id, { maxDevices: 3 });
    await createDevice(db, caller, lamp(lamps.productId, "c"));
    await updateTenant(db, t.id, { maxDevices: 0 });
    expect(await deviceRoom(db, caller.tenantId)).toBe(Infinity);
  });

  it("creates a batch up to the room left and refuses the rest, each with the limit's error", async () => {
    const { db, caller } = await twoTenants(engine);
    const t = (await findTenant(db, caller.tenantId))!;
    const lamps = await createProduct(db, caller, { productName: "Lamps", cloudProtocol: 1 });
    await createDevice(db, caller, { productId: lamps.productId, deviceName: "first", upLinkSystem: 1, authType: 1 });
    await updateTenant(db, t.id, { maxDevices: 4 });
    const inputs = ["a", "b", "bad", "c", "d", "e"].map((deviceName) => ({
      productId: deviceName === "bad" ? "no-such-product" : lamps.productId,
      deviceName,
      upLinkSystem: 1,
      authType: 1,
    }));
    const out = await createDevices(db, caller, inputs);
    const shown = out.map((o) => ("error" in o ? Object.keys(o.error.errors ?? {}).join() : "created"));
    // 3 places left: a, b and c take them (the bad row takes none); d and e are over the limit.
    expect(shown).toEqual(["created", "created", "productID", "created", "maxDevices", "maxDevices"]);
    expect(await deviceRoom(db, caller.tenantId)).toBe(0);
  });
});
