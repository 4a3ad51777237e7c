import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { twoTenants } from "./test-tenants.js";
import { createDevice, deleteDevices } from "./devices.js";
import { createGateway } from "./gateways.js";
import { addGroupDevices, createGroup } from "./groups.js";
import {
  createPolicy,
  deletePolicies,
  deviceIdsByPolicy,
  getPolicy,
  listPolicies,
  policiesOfDevice,
  updatePolicy,
} from "./policies.js";
import {
  bindDevicePolicies,
  bindPolicyDevices,
  listDevicePolicies,
  listPolicyDevices,
  notJoinedPolicies,
  notJoinedPolicyDevices,
  unbindDevicePolicies,
  unbindPolicyDevices,
} from "./policy-bindings.js";
import { createProduct } from "./products.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const page = { page: 1, limit: 10 };
const ids = (r: { items: Array<{ id: number }> }) => r.items.map((x) => x.id);

describe.each(engines)("policies on $name", (engine) => {
  async function setup() {
    const { db, caller, other } = await twoTenants(engine);
    const product = await createProduct(db, caller, { productName: "Meter", cloudProtocol: 1 });
    const device = (name: string, productId = product.productId, who = caller) =>
      createDevice(db, who, { productId, deviceName: name, upLinkSystem: 1, authType: 1 });
    const policy = (name: string, who = caller, topic = "data/#", access = 3, allow = 1) =>
      createPolicy(db, who, { name, topic, access, allow });
    return { db, caller, other, product, device, policy };
  }

  it("creates a policy with Form 1 codes, its creator and no update time", async () => {
    const { db, caller } = await setup();
    const p = await createPolicy(
      db,
      caller,
      { name: "Pub", topic: "up/+/x", access: 1, allow: 0, description: "d" },
      1_000,
    );
    expect(p).toMatchObject({
      name: "Pub",
      topic: "up/+/x",
      access: 1,
      allow: 0,
      description: "d",
      createUser: "root",
      userIntId: 1,
      createAt: 1_000,
      updateAt: null,
    });
    expect(await getPolicy(db, caller, p.id)).toEqual(p);
  });

  it("refuses a bad topic filter, access or allow with FORM_INVALID naming each", async () => {
    const { db, caller } = await setup();
    await expect(createPolicy(db, caller, { name: "x", topic: "a/#/b", access: 4, allow: 2 })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { topic: expect.any(String), access: expect.any(String), allow: expect.any(String) },
    });
    await expect(createPolicy(db, caller, { name: "x", topic: "$SYS/x", access: 1, allow: 1 })).rejects.toMatchObject({
      errors: { topic: expect.stringContaining("$") },
    });
    expect((await listPolicies(db, caller, page)).count).toBe(0);
  });

  it("lists policies newest first, filtered literally by name, and pages them", async () => {
    const { db, caller, other, policy } = await setup();
    const a = await policy("Rule 100%");
    const b = await policy("rule two");
    const c = await policy("Other");
    await policy("Rule of eve", other);
    expect(ids(await listPolicies(db, caller, page))).toEqual([c.id, b.id, a.id]);
    expect(ids(await listPolicies(db, caller, page, { nameLike: "RULE" }))).toEqual([b.id, a.id]);
    expect(ids(await listPolicies(db, caller, page, { nameLike: "0%" }))).toEqual([a.id]);
    const second = await listPolicies(db, caller, { page: 2, limit: 2 });
    expect(second).toMatchObject({ count: 3, page: 2, limit: 2 });
    expect(ids(second)).toEqual([a.id]);
  });

  it("edits only the given fields, sets updateAt and validates like create", async () => {
    const { db, caller, policy } = await setup();
    const p = await policy("P");
    const edited = await updatePolicy(db, caller, p.id, { topic: "cmd/+", access: 2, description: null }, 2_000);
    expect(edited).toMatchObject({
      name: "P",
      topic: "cmd/+",
      access: 2,
      allow: 1,
      description: null,
      createAt: p.createAt,
      updateAt: 2_000,
    });
    await expect(updatePolicy(db, caller, p.id, { topic: "a+" })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { topic: expect.any(String) },
    });
    expect((await getPolicy(db, caller, p.id)).topic).toBe("cmd/+");
  });

  it("answers DATA_NOT_FOUND for another tenant's policy or device on every operation that names one", async () => {
    const { db, caller, other, policy, device } = await setup();
    const p = await policy("P");
    const d = await device("d");
    const notFound = (what: string) => ({ code: "DATA_NOT_FOUND", errors: { [what]: "not found" } });
    await expect(getPolicy(db, other, p.id)).rejects.toMatchObject(notFound("policy"));
    await expect(updatePolicy(db, other, p.id, { name: "stolen" })).rejects.toMatchObject(notFound("policy"));
    await expect(bindPolicyDevices(db, other, p.id, [])).rejects.toMatchObject(notFound("policy"));
    await expect(unbindPolicyDevices(db, other, p.id, [d.id])).rejects.toMatchObject(notFound("policy"));
    await expect(listPolicyDevices(db, other, p.id, page)).rejects.toMatchObject(notFound("policy"));
    await expect(notJoinedPolicyDevices(db, other, p.id, page)).rejects.toMatchObject(notFound("policy"));
    await expect(bindDevicePolicies(db, other, d.id, [])).rejects.toMatchObject(notFound("device"));
    await expect(unbindDevicePolicies(db, other, d.id, [p.id])).rejects.toMatchObject(notFound("device"));
    await expect(listDevicePolicies(db, other, d.id, page)).rejects.toMatchObject(notFound("device"));
    await expect(notJoinedPolicies(db, other, d.id, page)).rejects.toMatchObject(notFound("device"));
    await deletePolicies(db, other, [p.id]);
    expect((await getPolicy(db, caller, p.id)).name).toBe("P");
  });

  it("binds from the device side, skipping bindings that exist, and lists both ways", async () => {
    const { db, caller, policy, device } = await setup();
    const [p1, p2, p3] = [await policy("p1"), await policy("p2"), await policy("p3")];
    const d = await device("d");
    await bindDevicePolicies(db, caller, d.id, [p1.id, p2.id]);
    await bindDevicePolicies(db, caller, d.id, [p2.id, p2.id]);
    expect(ids(await listDevicePolicies(db, caller, d.id, page))).toEqual([p2.id, p1.id]);
    expect(ids(await notJoinedPolicies(db, caller, d.id, page))).toEqual([p3.id]);
    expect(await listPolicyDevices(db, caller, p1.id, page)).toEqual({
      items: [{ id: d.id, deviceId: d.deviceId, deviceName: "d", deviceType: 1, productName: "Meter" }],
      count: 1,
      page: 1,
      limit: 10,
    });
    expect(await deviceIdsByPolicy(db, caller.tenantId, [p1.id, p3.id])).toEqual(
      new Map([
        [p1.id, [d.id]],
        [p3.id, []],
      ]),
    );
    await unbindDevicePolicies(db, caller, d.id, [p1.id, 9_999]);
    expect(ids(await listDevicePolicies(db, caller, d.id, page))).toEqual([p2.id]);
  });

  it("refuses another tenant's or unknown policies on a device with FORM_INVALID naming ids, binding none", async () => {
    const { db, caller, other, policy, device } = await setup();
    const mine = await policy("mine");
    const eves = await policy("eve's", other);
    const d = await device("d");
    for (const bad of [eves.id, 9_999]) {
      await expect(bindDevicePolicies(db, caller, d.id, [mine.id, bad])).rejects.toMatchObject({
        code: "FORM_INVALID",
        errors: { ids: expect.stringContaining(String(bad)) },
      });
    }
    expect((await listDevicePolicies(db, caller, d.id, page)).count).toBe(0);
  });

  it("binds devices and gateways from the policy side, refusing foreign devices with FORM_INVALID naming devicesIntID", async () => {
    const { db, caller, other, policy, device, product } = await setup();
    const p = await policy("P");
    const d = await device("d");
    const gw = await createGateway(db, caller, { productId: product.productId, deviceName: "gw", authType: 1 });
    const eveProduct = await createProduct(db, other, { productName: "E", cloudProtocol: 1 });
    const eves = await device("eve's", eveProduct.productId, other);
    await expect(bindPolicyDevices(db, caller, p.id, [d.id, eves.id])).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { devicesIntID: expect.stringContaining(String(eves.id)) },
    });
    expect((await listPolicyDevices(db, caller, p.id, page)).count).toBe(0);
    await bindPolicyDevices(db, caller, p.id, [d.id, gw.id, d.id]);
    const bound = await listPolicyDevices(db, caller, p.id, page);
    expect(bound.items.map((x) => [x.id, x.deviceType])).toEqual([
      [gw.id, 2],
      [d.id, 1],
    ]);
    await unbindPolicyDevices(db, caller, p.id, [gw.id]);
    expect(ids(await listPolicyDevices(db, caller, p.id, page))).toEqual([d.id]);
  });

  it("offers unbound devices of the tenant, filtered by device, product and group name", async () => {
    const { db, caller, other, policy, device, product } = await setup();
    const p = await policy("P");
    const valve = await createProduct(db, caller, { productName: "Valve_1", cloudProtocol: 1 });
    const [m1, m2, v1] = [await device("meter-a"), await device("meter-b"), await device("valve-a", valve.productId)];
    const eveProduct = await createProduct(db, other, { productName: "Meter", cloudProtocol: 1 });
    await device("meter-eve", eveProduct.productId, other);
    const g = await createGroup(db, caller, { productId: product.productId, groupName: "North wing" });
    await addGroupDevices(db, caller, g.id, [m2.id]);
    await bindPolicyDevices(db, caller, p.id, [m1.id]);
    expect(ids(await notJoinedPolicyDevices(db, caller, p.id, page))).toEqual([v1.id, m2.id]);
    expect(ids(await notJoinedPolicyDevices(db, caller, p.id, page, { deviceNameLike: "METER" }))).toEqual([m2.id]);
    expect(ids(await notJoinedPolicyDevices(db, caller, p.id, page, { productNameLike: "e_1" }))).toEqual([v1.id]);
    expect(ids(await notJoinedPolicyDevices(db, caller, p.id, page, { groupNameLike: "north" }))).toEqual([m2.id]);
    expect(ids(await notJoinedPolicyDevices(db, caller, p.id, page, { groupNameLike: "south" }))).toEqual([]);
    const first = await notJoinedPolicyDevices(db, caller, p.id, { page: 1, limit: 1 });
    expect(first).toMatchObject({
      count: 2,
      limit: 1,
      items: [{ id: v1.id, deviceName: "valve-a", productName: "Valve_1" }],
    });
  });

  it("refuses to delete a bound policy (REFERENCED_ERROR naming device) and deletes it once unbound", async () => {
    const { db, caller, policy, device } = await setup();
    const bound = await policy("bound");
    const free = await policy("free");
    const d = await device("d");
    await bindDevicePolicies(db, caller, d.id, [bound.id]);
    await expect(deletePolicies(db, caller, [bound.id, free.id])).rejects.toMatchObject({
      code: "REFERENCED_ERROR",
      errors: { device: expect.any(String) },
    });
    expect((await listPolicies(db, caller, page)).count).toBe(2);
    await unbindPolicyDevices(db, caller, bound.id, [d.id]);
    await deletePolicies(db, caller, [bound.id, free.id, 9_999]);
    expect((await listPolicies(db, caller, page)).count).toBe(0);
  });

  it("does not count bindings of deleted devices as references", async () => {
    const { db, caller, policy, device } = await setup();
    const p = await policy("P");
    const d = await device("d");
    await bindDevicePolicies(db, caller, d.id, [p.id]);
    await deleteDevices(db, caller, [d.id]);
    expect((await deviceIdsByPolicy(db, caller.tenantId, [p.id])).get(p.id)).toEqual([]);
    await deletePolicies(db, caller, [p.id]);
    expect((await listPolicies(db, caller, page)).count).toBe(0);
  });

  it("gives the adapters a device's rules, oldest first, with allow as a boolean", async () => {
    const { db, caller, policy, device } = await setup();
    const d = await device("d");
    const other = await device("other");
    const deny = await policy("deny", caller, "secret/#", 3, 0);
    const pub = await policy("pub", caller, "up/+", 1, 1);
    await bindDevicePolicies(db, caller, d.id, [pub.id, deny.id]);
    await bindDevicePolicies(db, caller, other.id, [pub.id]);
    expect(await policiesOfDevice(db, d.id)).toEqual([
      { id: deny.id, topic: "secret/#", access: 3, allow: false },
      { id: pub.id, topic: "up/+", access: 1, allow: true },
    ]);
    expect(await policiesOfDevice(db, 9_999)).toEqual([]);
  });
});
