import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { bootstrapAdmin } from "./bootstrap.js";
import type { Caller } from "./caller.js";
import { listDevices } from "./list-devices.js";
import { listDeviceEvents } from "./logs.js";
import { createProduct } from "./products.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

/** Devices seeded: more than a page plus the ids read past it, so both ways of counting run. */
const FLEET = 1_250;

describe.each(engines)("lists at fleet size on $name", (engine) => {
  async function fleet() {
    const { store } = await engine.open();
    const boot = await bootstrapAdmin(store.db, { username: "root", password: "pw-1234567", tenantName: "T" });
    const caller: Caller = {
      userIntId: 1,
      username: "root",
      tenantId: boot.tenantId!,
      role: "admin",
      serviceAdmin: true,
    };
    const product = await createProduct(store.db, caller, { productName: "Meters", cloudProtocol: 1 });
    const rows = Array.from({ length: FLEET }, (_, i) => ({
      tenantId: caller.tenantId,
      userIntId: 1,
      productIntId: product.id,
      deviceId: `d${i}`,
      // Every 50th is a gateway; a tenth are named "Pump …".
      deviceName: i % 10 === 3 ? `Pump ${i}` : `meter ${i}`,
      deviceUsername: `u${i}`,
      token: `t${i}`,
      authType: 1,
      deviceType: i % 50 === 0 ? 2 : 1,
      blocked: 0,
      deviceStatus: 0,
      createAt: 1_000 + i,
      updateAt: null,
    }));
    for (let i = 0; i < rows.length; i += 250)
      await store.db
        .insertInto("devices")
        .values(rows.slice(i, i + 250))
        .execute();
    const listed = await store.db
      .selectFrom("devices")
      .select(["id", "deviceName", "deviceType"])
      .where("tenantId", "=", caller.tenantId)
      .orderBy("id", "desc")
      .execute();
    return { db: store.db, caller, product, devices: listed.map((d) => ({ ...d, id: Number(d.id) })) };
  }

  it("pages devices newest first and counts every match, on full, short, deep and past-the-end pages", async () => {
    const { db, caller, devices } = await fleet();
    const terminals = devices.filter((d) => d.deviceType !== 2);
    for (const [page, limit] of [
      [1, 10],
      [5, 7],
      [Math.ceil(terminals.length / 10), 10],
      [2, 1000],
      [999, 10],
    ] as const) {
      const r = await listDevices(db, caller, { page, limit });
      expect(r.items.map((d) => d.id)).toEqual(terminals.slice((page - 1) * limit, page * limit).map((d) => d.id));
      expect(r.count).toBe(terminals.length);
      expect(r.items.every((d) => d.productName === "Meters" && Array.isArray(d.certs))).toBe(true);
    }
  });

  it("counts a search whether it matches fewer or more rows than a page reads past it", async () => {
    const { db, caller, devices } = await fleet();
    const all = { includeGateways: true };
    const pumps = devices.filter((d) => d.deviceName.startsWith("Pump"));
    const pumpPage = await listDevices(db, caller, { page: 2, limit: 10 }, { ...all, deviceNameLike: "pUMP" });
    expect(pumpPage.count).toBe(pumps.length);
    expect(pumpPage.items.map((d) => d.id)).toEqual(pumps.slice(10, 20).map((d) => d.id));
    const meters = devices.filter((d) => d.deviceName.startsWith("meter"));
    expect(meters.length).toBeGreaterThan(1_010);
    const meterPage = await listDevices(db, caller, { page: 3, limit: 10 }, { ...all, deviceNameLike: "METER" });
    expect(meterPage.count).toBe(meters.length);
    expect(meterPage.items.map((d) => d.deviceName)).toEqual(meters.slice(20, 30).map((d) => d.deviceName));
    const sorted = await listDevices(db, caller, { page: 1, limit: 3, sort: "createAt", order: "asc" }, all);
    expect(sorted.items.map((d) => d.deviceName)).toEqual(["meter 0", "meter 1", "meter 2"]);
    expect(sorted.count).toBe(FLEET);
  });

  it("lists one device's uplinks newest first with its names, and none of another tenant's", async () => {
    const { db, caller, devices } = await fleet();
    const [one, other] = [devices[0]!, devices[1]!];
    const events = Array.from({ length: 30 }, (_, i) => ({
      tenantId: i === 29 ? "another" : caller.tenantId,
      deviceIntId: i % 2 === 0 ? one.id : other.id,
      topic: `t/${i}`,
      payload: new Uint8Array([i]),
      qos: 1,
      msgTime: 5_000 + i,
      createAt: 5_000 + i,
      msgKey: `k${i}`,
    }));
    await db.insertInto("deviceEvents").values(events).execute();
    const r = await listDeviceEvents(db, caller, { page: 1, limit: 10 }, { deviceIntId: one.id });
    expect(r.count).toBe(15);
    expect(r.items.map((e) => e.topic)).toEqual([28, 26, 24, 22, 20, 18, 16, 14, 12, 10].map((i) => `t/${i}`));
    expect(r.items[0]).toMatchObject({ deviceName: one.deviceName, productName: "Meters" });
    const theOther = await listDeviceEvents(db, caller, { page: 2, limit: 10 }, { deviceIntId: other.id });
    expect([theOther.count, theOther.items.length]).toEqual([14, 4]);
  });
});
