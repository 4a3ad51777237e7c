import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevice, createGateway, type Caller } from "@iot/registry";
import { testApp } from "./test-app.js";

describe.each(["1", "2"] as const)("groups in Form %s", (form) => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let token: string;
  let eveToken: string;
  let admin: Caller;
  let eve: Caller;
  let productID: string;
  let otherProductID: string;
  let eveProductID: string;

  const addUser = (tenantId: string, username: string, role: string) => t.addUser(tenantId, username, role);
  const newProduct = async (name: string, as = token) =>
    (await t.call("POST", "/products", { productName: name, cloudProtocol: 1, description: "p" }, as)).body
      .productID as string;
  const newGroup = async (groupName: string, product = productID) => {
    const r = await t.call("POST", "/groups", { productID: product, groupName, description: "d" }, token);
    expect(r.status).toBe(201);
    return r.body as { id: number; groupID: string };
  };
  const newDevice = async (deviceName: string, productId = productID, who = admin) =>
    (await createDevice(t.store.db, who, { productId, deviceName, upLinkSystem: 1, authType: 1 })).id;

  beforeAll(async () => {
    t = await testApp(form);
    token = await t.login();
    const root = await t.store.db.selectFrom("users").selectAll().where("id", "=", 1).executeTakeFirstOrThrow();
    admin = { userIntId: root.id, username: root.username, tenantId: root.tenantId, role: "admin", serviceAdmin: true };
    await t.addTenant("tenant2");
    ({ token: eveToken, caller: eve } = await addUser("tenant2", "eve", "admin"));
    productID = await newProduct("Meter");
    otherProductID = await newProduct("Valve");
    eveProductID = await newProduct("Eve's", eveToken);
  });
  afterAll(() => t.close());

  it("creates a group with 201, a generated groupID and no joined names", async () => {
    const r = await t.call("POST", "/groups", { productID, groupName: "Created", description: "first floor" }, token);
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([
      "createAt",
      "description",
      "groupID",
      "groupName",
      "id",
      "productID",
      "tenantID",
      "updateAt",
      "userIntID",
    ]);
    expect(r.body).toMatchObject({
      groupName: "Created",
      description: "first floor",
      productID,
      tenantID: admin.tenantId,
      userIntID: 1,
      updateAt: null,
    });
    expect(r.body.groupID).toMatch(/^[A-Za-z0-9]{6}$/);
    expect(r.body.createAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it(`rejects a create body with FORM_INVALID naming productID, groupName${form === "2" ? " and description" : ""}`, async () => {
    const r = await t.call("POST", "/groups", { groupName: " " }, token);
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe("FORM_INVALID");
    expect(Object.keys(r.body.errors).sort()).toEqual(
      form === "1" ? ["groupName", "productID"] : ["description", "groupName", "productID"],
    );
    const noDescription = await t.call("POST", "/groups", { productID, groupName: "No description" }, token);
    expect(noDescription.status).toBe(form === "1" ? 201 : 400);
    if (form === "2") expect(noDescription.body.errors).toEqual({ description: expect.any(String) });
  });

  it("refuses a productID that is unknown or another tenant's with FORM_INVALID naming productID", async () => {
    for (const id of ["nope00", eveProductID]) {
      const r = await t.call("POST", "/groups", { productID: id, groupName: "x", description: "d" }, token);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { productID: expect.any(String) } });
    }
  });

  it("lists groups newest first with the product name, members and paging meta, filtered by groupName_like", async () => {
    const a = await newGroup("Listed 100%");
    const b = await newGroup("listed two");
    const d = await newDevice("listed-member");
    await t.call("POST", `/groups/${b.id}/devices`, { ids: [d] }, token);
    await t.call(
      "POST",
      "/groups",
      { productID: eveProductID, groupName: "Listed by eve", description: "d" },
      eveToken,
    );
    const r = await t.call("GET", "/groups?groupName_like=LISTED&_limit=1&_page=2", undefined, token);
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ count: 2, limit: 1, page: 2 });
    expect(r.body.items.map((g: { id: number }) => g.id)).toEqual([a.id]);
    const first = (await t.call("GET", "/groups?groupName_like=listed", undefined, token)).body.items[0];
    const members = form === "1" ? { deviceCount: 1 } : { devices: [{ id: d }], userIntID: 1 };
    expect(first).toEqual({
      id: b.id,
      groupID: b.groupID,
      groupName: "listed two",
      description: "d",
      productID,
      productName: "Meter",
      ...members,
      createAt: expect.any(String),
      updateAt: null,
    });
    expect(
      (await t.call("GET", "/groups?groupName_like=100%25", undefined, token)).body.items.map(
        (g: { id: number }) => g.id,
      ),
    ).toEqual([a.id]);
  });

  it("filters the list by groupID_like, case-insensitively", async () => {
    const g = await newGroup("By id");
    const r = await t.call("GET", `/groups?groupID_like=${g.groupID.toLowerCase()}`, undefined, token);
    expect(r.status).toBe(200);
    expect(r.body.items.map((x: { id: number }) => x.id)).toContain(g.id);
    expect(
      r.body.items.every((x: { groupID: string }) => x.groupID.toLowerCase().includes(g.groupID.toLowerCase())),
    ).toBe(true);
    expect((await t.call("GET", "/groups?groupID_like=zz%25zz", undefined, token)).body.meta.count).toBe(0);
  });

  it("shows a group's detail with its creator, tenant and members", async () => {
    const g = await newGroup("Detailed");
    const d = await newDevice("detail-member");
    await t.call("POST", `/groups/${g.id}/devices`, { ids: [d] }, token);
    const r = await t.call("GET", `/groups/${g.id}`, undefined, token);
    expect(r.status).toBe(200);
    const members = form === "1" ? { deviceCount: 1 } : { devices: [{ id: d }] };
    expect(r.body).toEqual({
      id: g.id,
      groupID: g.groupID,
      groupName: "Detailed",
      description: "d",
      productID,
      productName: "Meter",
      ...members,
      createAt: expect.any(String),
      updateAt: null,
      createUser: "admin",
      tenantID: admin.tenantId,
      userIntID: 1,
    });
  });

  it("answers 404 for another tenant's or an unknown group on every path that names one", async () => {
    const g = await newGroup("Private");
    const d = await newDevice("private-member");
    const calls: Array<[string, string, unknown?]> = [
      ["GET", `/groups/${g.id}`],
      ["PUT", `/groups/${g.id}`, { groupName: "stolen" }],
      ["GET", `/groups/${g.id}/devices`],
      ["POST", `/groups/${g.id}/devices`, { ids: [d] }],
      ["DELETE", `/groups/${g.id}/devices?ids=${d}`],
      ["GET", `/broker_select/groups/${g.id}/not_joined_devices`],
    ];
    for (const [method, path, body] of calls) {
      const r = await t.call(method, path, body, eveToken);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body).toMatchObject({ errorCode: "DATA_NOT_FOUND", errors: { group: "not found" } });
    }
    expect((await t.call("GET", "/groups/999999", undefined, token)).status).toBe(404);
    expect((await t.call("GET", "/groups/abc", undefined, token)).status).toBe(404);
    expect((await t.call("GET", `/groups/${g.id}`, undefined, token)).body.groupName).toBe("Private");
  });

  it("edits from the whole record, ignoring read-only fields, and answers without joined names", async () => {
    const g = await newGroup("Before");
    const record = (await t.call("GET", `/groups/${g.id}`, undefined, token)).body;
    const sent = {
      ...record,
      id: 424242,
      groupID: "HACKED",
      createAt: "2000-01-01 00:00:00",
      createUser: "eve",
      productName: "x",
      deviceCount: 99,
      devices: [{ id: 1 }],
      userIntID: 7,
      tenantID: "tenant2",
      groupName: "After",
      description: "new",
    };
    const r = await t.call("PUT", `/groups/${g.id}`, sent, token);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: g.id,
      groupID: g.groupID,
      groupName: "After",
      description: "new",
      productID,
      tenantID: admin.tenantId,
      userIntID: 1,
      createAt: record.createAt,
    });
    expect(r.body.updateAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(r.body).not.toHaveProperty("productName");
    expect(r.body).not.toHaveProperty("createUser");
    expect((await t.call("GET", `/groups/${g.id}`, undefined, token)).body).toMatchObject({
      groupName: "After",
      groupID: g.groupID,
    });
  });

  it("refuses an edit that changes productID or empties groupName with FORM_INVALID naming the field", async () => {
    const g = await newGroup("Fixed product");
    const moved = await t.call("PUT", `/groups/${g.id}`, { groupName: "Moved", productID: otherProductID }, token);
    expect(moved.status).toBe(400);
    expect(moved.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { productID: expect.any(String) } });
    const empty = await t.call("PUT", `/groups/${g.id}`, { groupName: "" }, token);
    expect(empty.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { groupName: expect.any(String) } });
    expect((await t.call("GET", `/groups/${g.id}`, undefined, token)).body).toMatchObject({
      groupName: "Fixed product",
      productID,
    });
  });

  it("adds member devices with 201, answering the member list and ignoring devices already in", async () => {
    const g = await newGroup("Members");
    const [d1, d2] = [await newDevice("m1"), await newDevice("m2")];
    const r = await t.call("POST", `/groups/${g.id}/devices`, { ids: [d1] }, token);
    expect(r.status).toBe(201);
    expect(r.body.items.map((d: { id: number }) => d.id)).toEqual([d1]);
    const again = await t.call("POST", `/groups/${g.id}/devices`, { ids: [d1, String(d2)] }, token);
    expect(again.status).toBe(201);
    expect(again.body.meta).toEqual({ count: 2, limit: 10, page: 1 });
    expect(again.body.items.map((d: { id: number }) => d.id)).toEqual([d2, d1]);
  });

  it("refuses devices of another product or tenant, gateways and bad bodies with FORM_INVALID naming ids, adding none", async () => {
    const g = await newGroup("Strict");
    const ok = await newDevice("strict-ok");
    const valve = await newDevice("valve", otherProductID);
    const eves = await newDevice("eve-device", eveProductID, eve);
    const gateway = (await createGateway(t.store.db, admin, { productId: productID, deviceName: "gw", authType: 1 }))
      .id;
    for (const ids of [[ok, valve], [ok, eves], [ok, gateway], [ok, 999999], [], ["x"]]) {
      const r = await t.call("POST", `/groups/${g.id}/devices`, { ids }, token);
      expect(r.status, JSON.stringify(ids)).toBe(400);
      expect(r.body.errorCode).toBe("FORM_INVALID");
      expect(Object.keys(r.body.errors)[0]).toMatch(/^ids/);
    }
    const refused = await t.call("POST", `/groups/${g.id}/devices`, { ids: [gateway] }, token);
    expect(refused.body.errors).toEqual({ ids: `gateways, which no group holds: ${gateway}` });
    expect((await t.call("GET", `/groups/${g.id}/devices`, undefined, token)).body.meta.count).toBe(0);
  });

  it("lists member devices as device list records, paged", async () => {
    const g = await newGroup("Paged members");
    const ids = [await newDevice("p1"), await newDevice("p2"), await newDevice("p3")];
    await t.call("POST", `/groups/${g.id}/devices`, { ids }, token);
    const r = await t.call("GET", `/groups/${g.id}/devices?_page=2&_limit=2`, undefined, token);
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ count: 3, limit: 2, page: 2 });
    expect(r.body.items).toHaveLength(1);
    const [d] = r.body.items;
    expect(d).toMatchObject({ id: ids[0], deviceName: "p1", productID, productName: "Meter" });
    if (form === "1")
      expect(d).toMatchObject({ deviceStatus: 0, deviceStatusLabel: expect.any(String), deviceType: 1 });
    else expect(d).toMatchObject({ status: 0, statusLabel: expect.any(String), deviceType: 0 });
  });

  it("removes members with 204 and offers non-members of the product as {label, value}", async () => {
    const g = await newGroup("Select");
    const [s1, s2] = [await newDevice("s1"), await newDevice("s2")];
    await t.call("POST", `/groups/${g.id}/devices`, { ids: [s1, s2] }, token);
    const before = await t.call("GET", `/broker_select/groups/${g.id}/not_joined_devices`, undefined, token);
    expect(before.status).toBe(200);
    expect(Array.isArray(before.body)).toBe(true);
    expect(before.body.map((o: { value: number }) => o.value)).not.toContain(s1);
    const removed = await t.call("DELETE", `/groups/${g.id}/devices?ids=${s1}`, undefined, token);
    expect(removed.status).toBe(204);
    expect(removed.body).toBeNull();
    const after = (await t.call("GET", `/broker_select/groups/${g.id}/not_joined_devices`, undefined, token)).body;
    expect(after).toContainEqual({ label: "s1", value: s1 });
    expect(after.map((o: { value: number }) => o.value)).not.toContain(s2);
    const offered = await t.store.db
      .selectFrom("devices")
      .select(["id", "productIntId", "deviceType", "tenantId"])
      .where(
        "id",
        "in",
        after.map((o: { value: number }) => o.value),
      )
      .execute();
    expect(new Set(offered.map((o) => `${o.tenantId}/${o.productIntId}/${o.deviceType}`)).size).toBe(1);
    expect(offered[0]).toMatchObject({ tenantId: admin.tenantId, deviceType: 1 });
    expect(
      (await t.call("GET", `/groups/${g.id}/devices`, undefined, token)).body.items.map((d: { id: number }) => d.id),
    ).toEqual([s2]);
  });

  it("refuses to delete a group with members with REFERENCED_ERROR naming device, and deletes it once empty", async () => {
    const g = await newGroup("Busy");
    const d = await newDevice("busy-member");
    await t.call("POST", `/groups/${g.id}/devices`, { ids: [d] }, token);
    const refused = await t.call("DELETE", `/groups?ids=${g.id}`, undefined, token);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errorCode: "REFERENCED_ERROR", errors: { device: expect.any(String) } });
    await t.call("DELETE", `/groups/${g.id}/devices?ids=${d}`, undefined, token);
    const deleted = await t.call("DELETE", `/groups?ids=${g.id},999999`, undefined, token);
    expect(deleted.status).toBe(204);
    expect((await t.call("GET", `/groups/${g.id}`, undefined, token)).status).toBe(404);
  });

  it("deletes nothing when a delete names another tenant's group", async () => {
    const g = await newGroup("Not eve's");
    const r = await t.call("DELETE", `/groups?ids=${g.id}`, undefined, eveToken);
    expect(r.status).toBe(204);
    expect((await t.call("GET", `/groups/${g.id}`, undefined, token)).status).toBe(200);
    expect((await t.call("DELETE", "/groups?ids=a,b", undefined, token)).body.errorCode).toBe("PARAMETER_INVALID");
  });

  it("lets a viewer read groups but not write them", async () => {
    const g = await newGroup("Viewed");
    const viewer = await addUser(admin.tenantId, `viewer${form}`, "viewer");
    expect((await t.call("GET", `/groups/${g.id}`, undefined, viewer.token)).status).toBe(200);
    const writes: Array<[string, string, unknown?]> = [
      ["POST", "/groups", { productID, groupName: "v", description: "d" }],
      ["PUT", `/groups/${g.id}`, { groupName: "v" }],
      ["DELETE", `/groups?ids=${g.id}`],
      ["POST", `/groups/${g.id}/devices`, { ids: [1] }],
    ];
    for (const [method, path, body] of writes)
      expect((await t.call(method, path, body, viewer.token)).body.errorCode, `${method} ${path}`).toBe(
        "PERMISSION_DENIED",
      );
  });
});
