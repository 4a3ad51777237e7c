import { afterAll, describe, expect, it } from "vitest";
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { engines } from "../store/test-engines.js";
import { deleteHistoryAlerts, listHistoryAlerts } from "./alerts.js";
import { bootstrapAdmin } from "./bootstrap.js";
import type { Caller } from "./caller.js";
import { createDevice, deleteDevices } from "./devices.js";
import { createGroup } from "./groups.js";
import { listGroupControlLogs } from "./logs.js";
import { createProduct } from "./products.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const page = { page: 1, limit: 10 };

/** Seeds an alert row directly: the alert engine comes later. */
const seedAlert = (
  db: Kysely<Database>,
  tenantId: string,
  deviceIntId: number,
  alertName: string,
  at = 1_000,
  endTime: number | null = null,
) =>
  db
    .insertInto("historyAlerts")
    .values({
      tenantId,
      deviceIntId,
      alertName,
      alertContent: "temperature > 30",
      alertDetail: JSON.stringify({ temperature: 31 }),
      alertSeverity: 1,
      alertTimes: 2,
      startTime: at,
      endTime,
      createAt: at,
      updateAt: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

describe.each(engines)("alerts and group control logs on $name", (engine) => {
  async function setup() {
    const { store } = await engine.open();
    const db = store.db;
    const boot = await bootstrapAdmin(db, { username: "root", password: "pw-1234567", tenantName: "T" });
    const caller: Caller = {
      userIntId: 1,
      username: "root",
      tenantId: boot.tenantId!,
      role: "admin",
      serviceAdmin: true,
    };
    const other: Caller = { ...caller, userIntId: 99, username: "eve", tenantId: "other", serviceAdmin: false };
    const product = await createProduct(db, caller, { productName: "Meter", cloudProtocol: 1 });
    const device = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "d",
      upLinkSystem: 1,
      authType: 1,
    });
    return { db, caller, other, product, device };
  }

  it("lists the tenant's alerts newest first with the device's names", async () => {
    const { db, caller, device } = await setup();
    const a = await seedAlert(db, caller.tenantId, device.id, "hot", 1_000);
    const b = await seedAlert(db, caller.tenantId, device.id, "hotter", 2_000);
    await seedAlert(db, "other", device.id, "not ours");
    const r = await listHistoryAlerts(db, caller, page);
    expect(r).toMatchObject({ count: 2, page: 1, limit: 10 });
    expect(r.items.map((x) => x.id)).toEqual([b.id, a.id]);
    expect(r.items[1]).toMatchObject({
      alertName: "hot",
      deviceId: device.deviceId,
      deviceName: "d",
      alertSeverity: 1,
      alertTimes: 2,
      startTime: 1_000,
      endTime: null,
    });
  });

  it("filters alerts by device, by deviceID or deviceIntId, and by open or closed, newest first", async () => {
    const { db, caller, product, device } = await setup();
    const other = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "e",
      upLinkSystem: 1,
      authType: 1,
    });
    const closed = await seedAlert(db, caller.tenantId, device.id, "was hot", 1_000, 1_500);
    const open = await seedAlert(db, caller.tenantId, device.id, "hot", 2_000);
    const elsewhere = await seedAlert(db, caller.tenantId, other.id, "leak", 3_000);
    const ids = async (filter: Parameters<typeof listHistoryAlerts>[3]) =>
      (await listHistoryAlerts(db, caller, page, filter)).items.map((a) => a.id);
    expect(await ids({ deviceId: device.deviceId })).toEqual([open.id, closed.id]);
    expect(await ids({ deviceIntId: other.id })).toEqual([elsewhere.id]);
    expect(await ids({ status: "open" })).toEqual([elsewhere.id, open.id]);
    expect(await ids({ status: "closed" })).toEqual([closed.id]);
    expect(await ids({ deviceId: device.deviceId, deviceIntId: device.id, status: "open" })).toEqual([open.id]);
    expect(await ids({ deviceId: device.deviceId, deviceIntId: other.id })).toEqual([]);
    expect(await ids({ deviceId: "nope" })).toEqual([]);
    expect((await listHistoryAlerts(db, caller, page, { status: "open" })).count).toBe(2);
  });

  it("never shows another tenant's alerts, even filtered by a device id they carry", async () => {
    const { db, caller, other, device } = await setup();
    await seedAlert(db, "other", device.id, "foreign row naming our device");
    const eveProduct = await createProduct(db, other, { productName: "Eve's", cloudProtocol: 1 });
    const eves = await createDevice(db, other, {
      productId: eveProduct.productId,
      deviceName: "eve",
      upLinkSystem: 1,
      authType: 1,
    });
    const evesAlert = await seedAlert(db, "other", eves.id, "eve's");
    for (const filter of [{}, { deviceIntId: device.id }, { deviceIntId: eves.id }, { deviceId: eves.deviceId }])
      expect((await listHistoryAlerts(db, caller, page, filter)).count).toBe(0);
    const theirs = await listHistoryAlerts(db, other, page, { deviceId: eves.deviceId, status: "open" });
    expect(theirs.items.map((a) => [a.id, a.deviceName])).toEqual([[evesAlert.id, "eve"]]);
    expect((await listHistoryAlerts(db, other, page, { deviceId: device.deviceId })).count).toBe(0);
  });

  it("keeps alerts of a deleted device, without its names", async () => {
    const { db, caller, device } = await setup();
    await seedAlert(db, caller.tenantId, device.id, "hot");
    await deleteDevices(db, caller, [device.id]);
    expect((await listHistoryAlerts(db, caller, page)).items[0]).toMatchObject({
      alertName: "hot",
      deviceId: null,
      deviceName: null,
    });
  });

  it("deletes the tenant's alerts by id, ignoring another tenant's", async () => {
    const { db, caller, other, device } = await setup();
    const a = await seedAlert(db, caller.tenantId, device.id, "a");
    const b = await seedAlert(db, caller.tenantId, device.id, "b");
    await deleteHistoryAlerts(db, other, [a.id, b.id]);
    expect((await listHistoryAlerts(db, caller, page)).count).toBe(2);
    await deleteHistoryAlerts(db, caller, [a.id, 9_999]);
    expect((await listHistoryAlerts(db, caller, page)).items.map((x) => x.id)).toEqual([b.id]);
  });

  it("lists the commands sent to one group, newest first, and 404s another tenant's group", async () => {
    const { db, caller, other, product, device } = await setup();
    const g = await createGroup(db, caller, { productId: product.productId, groupName: "North" });
    const h = await createGroup(db, caller, { productId: product.productId, groupName: "South" });
    const log = (groupIntId: number | null, payload: string) =>
      db
        .insertInto("controlLogs")
        .values({
          tenantId: caller.tenantId,
          deviceIntId: device.id,
          groupIntId,
          topic: null,
          payload,
          qos: 1,
          publishStatus: 1,
          userIntId: 1,
          publishUser: "root",
          expiresAt: null,
          createAt: 1_000,
          updateAt: null,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
    const first = await log(g.id, "on");
    const second = await log(g.id, "off");
    await log(h.id, "elsewhere");
    await log(null, "direct");
    const r = await listGroupControlLogs(db, caller, g.id, page);
    expect(r).toMatchObject({ count: 2, page: 1, limit: 10 });
    expect(r.items.map((l) => l.id)).toEqual([second.id, first.id]);
    expect(r.items[0]).toMatchObject({
      groupId: g.groupId,
      groupName: "North",
      payload: "off",
      publishStatus: 1,
      publishUser: "root",
      userIntId: 1,
    });
    await expect(listGroupControlLogs(db, other, g.id, page)).rejects.toMatchObject({
      code: "DATA_NOT_FOUND",
      errors: { group: "not found" },
    });
  });
});
