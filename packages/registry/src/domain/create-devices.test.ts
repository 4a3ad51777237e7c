import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { createDevice } from "./devices.js";
import { createDevices, type BatchOutcome } from "./create-devices.js";
import { createProduct } from "./products.js";
import { twoTenants } from "./test-tenants.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const errorsOf = (o: BatchOutcome) => ("error" in o ? (o.error.errors ?? o.error.message) : "created");

describe.each(engines)("creating devices in a batch on $name", (engine) => {
  it("creates the good devices and reports each bad one with the errors createDevice would throw", async () => {
    const { db, caller, other } = await twoTenants(engine);
    const lamps = await createProduct(db, caller, { productName: "Lamps", cloudProtocol: 1 });
    const meters = await createProduct(db, caller, { productName: "Meters", cloudProtocol: 7 });
    const gw = await createDevice(db, caller, {
      productId: meters.productId,
      deviceName: "gw",
      deviceType: 2,
      authType: 1,
    });
    await createDevice(db, other, {
      productId: (await createProduct(db, other, { productName: "X", cloudProtocol: 1 })).productId,
      deviceName: "elsewhere",
      upLinkSystem: 1,
      authType: 1,
      deviceUsername: "taken-name",
    });
    const lamp = (deviceName: string, extra: object = {}) => ({
      productId: lamps.productId,
      deviceName,
      upLinkSystem: 1,
      authType: 1,
      ...extra,
    });
    const slave = (deviceName: string, modBusIndex: number | null) => ({
      productId: meters.productId,
      deviceName,
      upLinkSystem: 2,
      gateway: gw.id,
      authType: 1,
      modBusIndex,
    });
    const outcomes = await createDevices(db, caller, [
      lamp("a", { deviceId: "a", deviceUsername: "user-a" }),
      lamp("dup id", { deviceId: "a" }), // deviceID taken earlier in the batch
      lamp("dup user", { deviceUsername: "user-a" }), // deviceUsername taken earlier in the batch
      lamp("other tenant's user", { deviceUsername: "taken-name" }), // taken in the store, across tenants
      slave("s1", 1),
      slave("s2", 1), // modBusIndex taken by s1 in this batch
      slave("s3", null), // Modbus needs a modBusIndex
      { ...lamp("no product"), productId: "nope" },
      lamp("imei", { imei: "123456789012345" }),
      lamp("imei again", { imei: "123456789012345" }),
      lamp("last"),
    ]);
    expect(outcomes.map(errorsOf)).toEqual([
      "created",
      { deviceID: "already exists" },
      { deviceUsername: "already exists" },
      { deviceUsername: "already exists" },
      "created",
      { modBusIndex: "already used by a sibling device" },
      { modBusIndex: "required for Modbus devices" },
      { productID: "no such product" },
      "created",
      { IMEI: "already exists" },
      "created",
    ]);
    const names = await db
      .selectFrom("devices")
      .select("deviceName")
      .where("tenantId", "=", caller.tenantId)
      .orderBy("id")
      .execute();
    expect(names.map((n) => n.deviceName)).toEqual(["gw", "a", "s1", "imei", "last"]);
    const ids = outcomes.flatMap((o) => ("id" in o ? [o.id] : []));
    expect(ids).toHaveLength(4);
  });
});
