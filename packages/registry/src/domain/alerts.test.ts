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
const seedAlert = (db: Kysely<Database>, tenantId: string, deviceIntId: number, alertName: string, at = 1_000) =>
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
      endTime: null,
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
