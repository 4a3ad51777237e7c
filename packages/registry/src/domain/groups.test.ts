import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { twoTenants } from "./test-tenants.js";
import { createDevice, deleteDevices } from "./devices.js";
import { createGateway } from "./gateways.js";
import {
  addGroupDevices,
  createGroup,
  deleteGroups,
  deviceIdsByGroup,
  getGroup,
  listGroupDevices,
  listGroups,
  notJoinedDevices,
  removeGroupDevices,
  updateGroup,
} from "./groups.js";
import { createProduct } from "./products.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const page = { page: 1, limit: 10 };

describe.each(engines)("groups on $name", (engine) => {
  async function setup() {
    const { db, caller, other } = await twoTenants(engine);
    const product = await createProduct(db, caller, { productName: "Meter", cloudProtocol: 1 });
    const device = (name: string, productId = product.productId, who = caller) =>
      createDevice(db, who, { productId, deviceName: name, upLinkSystem: 1, authType: 1 });
    return { db, caller, other, product, device };
  }

  it("creates a group with a fresh 6-character groupID, its product and creator", async () => {
    const { db, caller, product } = await setup();
    const g = await createGroup(
      db,
      caller,
      { productId: product.productId, groupName: "North", description: "d" },
      1_000,
    );
    expect(g.groupId).toMatch(/^[A-Za-z0-9]{6}$/);
    expect(g).toMatchObject({
      groupName: "North",
      description: "d",
      productId: product.productId,
      productName: "Meter",
      productIntId: product.id,
      createUser: "root",
      deviceCount: 0,
      createAt: 1_000,
      updateAt: null,
    });
    expect(await getGroup(db, caller, g.id)).toEqual(g);
    const again = await createGroup(db, caller, { productId: product.productId, groupName: "North" });
    expect(again.groupId).not.toBe(g.groupId);
    expect(again.description).toBeNull();
  });

  it("refuses a productID that is unknown or another tenant's with FORM_INVALID naming productID", async () => {
    const { db, caller, other, product } = await setup();
    await expect(createGroup(db, caller, { productId: "nope", groupName: "x" })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { productID: "no such product" },
    });
    await expect(createGroup(db, other, { productId: product.productId, groupName: "x" })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { productID: "no such product" },
    });
    expect((await listGroups(db, caller, page)).count).toBe(0);
  });

  it("lists groups newest first, filtered literally by name or groupID, and pages them", async () => {
    const { db, caller, other, product } = await setup();
    const a = await createGroup(db, caller, { productId: product.productId, groupName: "Floor 100%" });
    const b = await createGroup(db, caller, { productId: product.productId, groupName: "floor 2" });
    const c = await createGroup(db, caller, { productId: product.productId, groupName: "Roof" });
    const own = await createProduct(db, other, { productName: "P", cloudProtocol: 1 });
    await createGroup(db, other, { productId: own.productId, groupName: "Floor of eve" });
    const all = await listGroups(db, caller, page);
    expect(all.items.map((g) => g.id)).toEqual([c.id, b.id, a.id]);
    expect((await listGroups(db, caller, page, { groupNameLike: "FLOOR" })).items.map((g) => g.id)).toEqual([
      b.id,
      a.id,
    ]);
    expect((await listGroups(db, caller, page, { groupNameLike: "100%" })).items.map((g) => g.id)).toEqual([a.id]);
    expect((await listGroups(db, caller, page, { groupNameLike: "0%" })).items.map((g) => g.id)).toEqual([a.id]);
    expect(
      (await listGroups(db, caller, page, { groupIdLike: b.groupId.toLowerCase() })).items.map((g) => g.id),
    ).toContain(b.id);
    const second = await listGroups(db, caller, { page: 2, limit: 2 });
    expect(second).toMatchObject({ count: 3, page: 2, limit: 2 });
    expect(second.items.map((g) => g.id)).toEqual([a.id]);
  });

  it("answers DATA_NOT_FOUND for another tenant's group on every operation that names one", async () => {
    const { db, caller, other, product, device } = await setup();
    const g = await createGroup(db, caller, { productId: product.productId, groupName: "G" });
    const d = await device("d1");
    const notFound = { code: "DATA_NOT_FOUND", errors: { group: "not found" } };
    await expect(getGroup(db, other, g.id)).rejects.toMatchObject(notFound);
    await expect(getGroup(db, caller, 9_999)).rejects.toMatchObject(notFound);
    await expect(updateGroup(db, other, g.id, { groupName: "stolen" })).rejects.toMatchObject(notFound);
    await expect(addGroupDevices(db, other, g.id, [d.id])).rejects.toMatchObject(notFound);
    await expect(removeGroupDevices(db, other, g.id, [d.id])).rejects.toMatchObject(notFound);
    await expect(listGroupDevices(db, other, g.id, page)).rejects.toMatchObject(notFound);
    await expect(notJoinedDevices(db, other, g.id)).rejects.toMatchObject(notFound);
    expect((await getGroup(db, caller, g.id)).groupName).toBe("G");
  });

  it("edits name and description, sets updateAt, and refuses to move the group to another product", async () => {
    const { db, caller, product } = await setup();
    const g = await createGroup(
      db,
      caller,
      { productId: product.productId, groupName: "G", description: "old" },
      1_000,
    );
    const edited = await updateGroup(
      db,
      caller,
      g.id,
      { groupName: "H", description: null, productId: product.productId },
      2_000,
    );
    expect(edited).toMatchObject({
      groupName: "H",
      description: null,
      groupId: g.groupId,
      createAt: 1_000,
      updateAt: 2_000,
    });
    const p2 = await createProduct(db, caller, { productName: "Other", cloudProtocol: 1 });
    await expect(updateGroup(db, caller, g.id, { groupName: "I", productId: p2.productId })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { productID: "cannot be changed" },
    });
    expect((await getGroup(db, caller, g.id)).groupName).toBe("H");
  });

  it("adds devices of the group's product, skips members already in, and counts them", async () => {
    const { db, caller, product, device } = await setup();
    const g = await createGroup(db, caller, { productId: product.productId, groupName: "G" });
    const [d1, d2, d3] = [await device("d1"), await device("d2"), await device("d3")];
    await addGroupDevices(db, caller, g.id, [d1.id, d2.id]);
    await addGroupDevices(db, caller, g.id, [d2.id, d3.id, d3.id]);
    expect((await getGroup(db, caller, g.id)).deviceCount).toBe(3);
    const members = await listGroupDevices(db, caller, g.id, { page: 1, limit: 2 });
    expect(members).toMatchObject({ count: 3, page: 1, limit: 2 });
    expect(members.items.map((d) => d.deviceName)).toEqual(["d3", "d2"]);
    expect((await deviceIdsByGroup(db, caller.tenantId, [g.id])).get(g.id)).toEqual([d1.id, d2.id, d3.id]);
  });

  it("refuses devices of another product or tenant, gateways and unknown ids with FORM_INVALID naming ids, adding none", async () => {
    const { db, caller, other, product, device } = await setup();
    const g = await createGroup(db, caller, { productId: product.productId, groupName: "G" });
    const ok = await device("ok");
    const p2 = await createProduct(db, caller, { productName: "Other", cloudProtocol: 1 });
    const otherProduct = await device("x", p2.productId);
    const eveProduct = await createProduct(db, other, { productName: "E", cloudProtocol: 1 });
    const foreign = await device("eve's", eveProduct.productId, other);
    const gateway = await createGateway(db, caller, { productId: product.productId, deviceName: "gw", authType: 1 });
    for (const bad of [otherProduct.id, foreign.id, gateway.id, 9_999]) {
      await expect(addGroupDevices(db, caller, g.id, [ok.id, bad])).rejects.toMatchObject({
        code: "FORM_INVALID",
        errors: { ids: expect.stringContaining(String(bad)) },
      });
    }
    await expect(addGroupDevices(db, caller, g.id, [ok.id, gateway.id])).rejects.toMatchObject({
      errors: { ids: `gateways, which no group holds: ${gateway.id}` },
    });
    await expect(addGroupDevices(db, caller, g.id, [gateway.id, 9_999])).rejects.toMatchObject({
      errors: { ids: `gateways, which no group holds: ${gateway.id}; not devices of the group's product: 9999` },
    });
    expect((await getGroup(db, caller, g.id)).deviceCount).toBe(0);
  });

  it("offers the product's devices not yet in the group, and removes members on request", async () => {
    const { db, caller, product, device } = await setup();
    const g = await createGroup(db, caller, { productId: product.productId, groupName: "G" });
    const [d1, d2] = [await device("d1"), await device("d2")];
    await createGateway(db, caller, { productId: product.productId, deviceName: "gw", authType: 1 });
    const p2 = await createProduct(db, caller, { productName: "Other", cloudProtocol: 1 });
    await device("elsewhere", p2.productId);
    expect(await notJoinedDevices(db, caller, g.id)).toEqual([
      { id: d1.id, deviceName: "d1" },
      { id: d2.id, deviceName: "d2" },
    ]);
    await addGroupDevices(db, caller, g.id, [d1.id, d2.id]);
    expect(await notJoinedDevices(db, caller, g.id)).toEqual([]);
    await removeGroupDevices(db, caller, g.id, [d1.id, 9_999]);
    expect(await notJoinedDevices(db, caller, g.id)).toEqual([{ id: d1.id, deviceName: "d1" }]);
    expect((await listGroupDevices(db, caller, g.id, page)).items.map((d) => d.id)).toEqual([d2.id]);
  });

  it("refuses to delete a group with members (REFERENCED_ERROR naming device) and deletes it once empty", async () => {
    const { db, caller, product, device } = await setup();
    const g = await createGroup(db, caller, { productId: product.productId, groupName: "G" });
    const empty = await createGroup(db, caller, { productId: product.productId, groupName: "E" });
    const d = await device("d");
    await addGroupDevices(db, caller, g.id, [d.id]);
    await expect(deleteGroups(db, caller, [g.id, empty.id])).rejects.toMatchObject({
      code: "REFERENCED_ERROR",
      errors: { device: expect.any(String) },
    });
    expect((await listGroups(db, caller, page)).count).toBe(2);
    await removeGroupDevices(db, caller, g.id, [d.id]);
    await deleteGroups(db, caller, [g.id, empty.id]);
    expect((await listGroups(db, caller, page)).count).toBe(0);
  });

  it("ignores another tenant's and unknown ids on delete, deleting nothing of theirs", async () => {
    const { db, caller, other, product } = await setup();
    const g = await createGroup(db, caller, { productId: product.productId, groupName: "G" });
    await deleteGroups(db, other, [g.id, 9_999]);
    expect((await getGroup(db, caller, g.id)).id).toBe(g.id);
  });

  it("drops a deleted device from its groups", async () => {
    const { db, caller, product, device } = await setup();
    const g = await createGroup(db, caller, { productId: product.productId, groupName: "G" });
    const d = await device("d");
    await addGroupDevices(db, caller, g.id, [d.id]);
    await deleteDevices(db, caller, [d.id]);
    expect((await getGroup(db, caller, g.id)).deviceCount).toBe(0);
    await deleteGroups(db, caller, [g.id]);
    expect((await listGroups(db, caller, page)).count).toBe(0);
  });
});
