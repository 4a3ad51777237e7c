import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { bootstrapAdmin } from "./bootstrap.js";
import type { Caller } from "./caller.js";
import { authenticateDevice } from "./device-auth.js";
import { createDevice } from "./devices.js";
import { createProduct } from "./products.js";
import { addSubscription, listSubscriptions, removeSubscriptions, subscriptionsOfDevice } from "./subscriptions.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const page = { page: 1, limit: 10 };

describe.each(engines)("proxy subscriptions on $name", (engine) => {
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
    const device = (name: string) =>
      createDevice(db, caller, { productId: product.productId, deviceName: name, upLinkSystem: 1, authType: 1 });
    return { db, caller, other, device };
  }

  it("adds a subscription with QoS 1 by default and lists a device's newest first", async () => {
    const { db, caller, device } = await setup();
    const d = await device("d");
    const a = await addSubscription(db, caller, d.id, { topic: "cmd/+" }, 1_000);
    const b = await addSubscription(db, caller, d.id, { topic: "cfg/#", qos: 0 }, 2_000);
    expect(a).toMatchObject({
      deviceIntId: d.id,
      tenantId: caller.tenantId,
      topic: "cmd/+",
      qos: 1,
      createAt: 1_000,
      updateAt: null,
    });
    expect(b.qos).toBe(0);
    const r = await listSubscriptions(db, caller, d.id, page);
    expect(r).toMatchObject({ count: 2, page: 1, limit: 10 });
    expect(r.items.map((s) => s.id)).toEqual([b.id, a.id]);
    expect(await subscriptionsOfDevice(db, d.id)).toEqual([
      { id: a.id, topic: "cmd/+", qos: 1 },
      { id: b.id, topic: "cfg/#", qos: 0 },
    ]);
  });

  it("hands a device's subscriptions to the adapter when it authenticates, oldest first", async () => {
    const { db, caller, device } = await setup();
    const d = await device("auth");
    await addSubscription(db, caller, d.id, { topic: "cmd/+" }, 1_000);
    await addSubscription(db, caller, d.id, { topic: "cfg/#", qos: 0 }, 2_000);
    const out = await authenticateDevice(db, {
      protocol: 1,
      clientIp: "",
      credentials: { kind: "token", clientId: d.deviceId, username: d.deviceUsername, token: d.token },
    });
    expect(out.ok && out.subscriptions).toEqual([
      { topic: "cmd/+", qos: 1 },
      { topic: "cfg/#", qos: 0 },
    ]);
  });

  it("refuses the same topic twice on a device with DATA_EXISTED naming topic, but allows it on another device", async () => {
    const { db, caller, device } = await setup();
    const [d1, d2] = [await device("d1"), await device("d2")];
    await addSubscription(db, caller, d1.id, { topic: "cmd" });
    await expect(addSubscription(db, caller, d1.id, { topic: "cmd", qos: 0 })).rejects.toMatchObject({
      code: "DATA_EXISTED",
      errors: { topic: expect.any(String) },
    });
    await addSubscription(db, caller, d2.id, { topic: "cmd" });
    expect((await listSubscriptions(db, caller, d1.id, page)).count).toBe(1);
  });

  it("refuses a bad topic filter or QoS with FORM_INVALID naming each", async () => {
    const { db, caller, device } = await setup();
    const d = await device("d");
    await expect(addSubscription(db, caller, d.id, { topic: "a/#/b", qos: 2 })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { topic: expect.any(String), qos: expect.any(String) },
    });
    expect((await listSubscriptions(db, caller, d.id, page)).count).toBe(0);
  });

  it("removes a device's subscriptions by id, ignoring other devices' ids", async () => {
    const { db, caller, device } = await setup();
    const [d1, d2] = [await device("d1"), await device("d2")];
    const a = await addSubscription(db, caller, d1.id, { topic: "a" });
    const b = await addSubscription(db, caller, d1.id, { topic: "b" });
    const c = await addSubscription(db, caller, d2.id, { topic: "c" });
    await removeSubscriptions(db, caller, d1.id, [a.id, c.id, 9_999]);
    expect((await listSubscriptions(db, caller, d1.id, page)).items.map((s) => s.id)).toEqual([b.id]);
    expect((await listSubscriptions(db, caller, d2.id, page)).count).toBe(1);
  });

  it("answers DATA_NOT_FOUND for another tenant's device", async () => {
    const { db, caller, other, device } = await setup();
    const d = await device("d");
    const s = await addSubscription(db, caller, d.id, { topic: "a" });
    const notFound = { code: "DATA_NOT_FOUND", errors: { device: "not found" } };
    await expect(addSubscription(db, other, d.id, { topic: "b" })).rejects.toMatchObject(notFound);
    await expect(listSubscriptions(db, other, d.id, page)).rejects.toMatchObject(notFound);
    await expect(removeSubscriptions(db, other, d.id, [s.id])).rejects.toMatchObject(notFound);
    expect((await listSubscriptions(db, caller, d.id, page)).count).toBe(1);
  });
});
