import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCalls } from "./devices-fixture.js";
import { adminApp, type TestApp } from "./test-app.js";

let t: TestApp;
let token: string;
const { call, product, gatewayOf } = adminCalls(() => ({ t, token }));

beforeAll(async () => {
  ({ t, token } = await adminApp());
});
afterAll(() => t.close());

describe("devices", () => {
  let productID: string;
  beforeAll(async () => {
    productID = (await t.call("POST", "/products", { productName: "Meters", cloudProtocol: 1 }, token)).body.productID;
  });

  it("are created with generated deviceID, deviceUsername and token when omitted", async () => {
    const r = await t.call(
      "POST",
      "/devices",
      { productID, deviceName: "m1", deviceType: 1, upLinkSystem: 1, authType: 1 },
      token,
    );
    expect(r.status).toBe(201);
    expect(r.body.deviceID).toHaveLength(36);
    expect(r.body.deviceUsername).toHaveLength(36);
    expect(r.body.token).toMatch(/^[0-9a-f]{32}$/);
    expect(r.body).toMatchObject({ deviceName: "m1", cloudProtocol: 1, deviceStatus: 0, blocked: 0, productID });
    const detail = await t.call("GET", `/devices/${r.body.id}`, undefined, token);
    expect(detail.body).toMatchObject({
      productName: "Meters",
      createUser: "admin",
      deviceStatusLabel: "Offline",
      clientIP: null,
    });
    const list = await t.call("GET", "/devices", undefined, token);
    expect(list.body.items[0]).not.toHaveProperty("createUser");
    expect(list.body.items[0]).toHaveProperty("deviceTypeLabel", "Terminal");
  });

  it("reject a duplicate deviceID or deviceUsername with DATA_EXISTED", async () => {
    await t.call(
      "POST",
      "/devices",
      { productID, deviceName: "a", deviceID: "dup-1", deviceUsername: "dup-user-1", upLinkSystem: 1, authType: 1 },
      token,
    );
    const sameId = await t.call(
      "POST",
      "/devices",
      { productID, deviceName: "b", deviceID: "dup-1", upLinkSystem: 1, authType: 1 },
      token,
    );
    expect(sameId.status).toBe(400);
    expect(sameId.body).toMatchObject({ errorCode: "DATA_EXISTED", errors: { deviceID: "already exists" } });
    const sameUser = await t.call(
      "POST",
      "/devices",
      { productID, deviceName: "c", deviceUsername: "dup-user-1", upLinkSystem: 1, authType: 1 },
      token,
    );
    expect(sameUser.body).toMatchObject({ errorCode: "DATA_EXISTED", errors: { deviceUsername: "already exists" } });
  });

  it("reject an unknown product and an unknown gateway as FORM_INVALID", async () => {
    const r = await t.call(
      "POST",
      "/devices",
      { productID: "nope", deviceName: "x", upLinkSystem: 1, authType: 1 },
      token,
    );
    expect(r.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { productID: "no such product" } });
    const g = await t.call(
      "POST",
      "/devices",
      { productID, deviceName: "x", upLinkSystem: 2, gateway: 999, authType: 1 },
      token,
    );
    expect(g.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { gateway: "no such gateway" } });
  });

  it("answer 404 for an unknown id and an id of another tenant", async () => {
    expect((await t.call("GET", "/devices/99999", undefined, token)).status).toBe(404);
    const other = await t.store.db
      .insertInto("tenants")
      .values({ tenantId: "other", tenantName: "O", enable: 1, createAt: 0, updateAt: null })
      .execute();
    expect(other).toBeTruthy();
    const p = await t.store.db
      .insertInto("products")
      .values({
        tenantId: "other",
        userIntId: 1,
        productId: "OTHER1",
        productName: "theirs",
        description: null,
        cloudProtocol: 1,
        createAt: 0,
        updateAt: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const r = await t.call("GET", `/products/${p.id}`, undefined, token);
    expect(r.status).toBe(404);
    expect(r.body.errorCode).toBe("DATA_NOT_FOUND");
    const list = await t.call("GET", "/products?_limit=1000", undefined, token);
    expect(list.body.items.some((x: { productID: string }) => x.productID === "OTHER1")).toBe(false);
    const dev = await t.call(
      "POST",
      "/devices",
      { productID: "OTHER1", deviceName: "sneaky", upLinkSystem: 1, authType: 1 },
      token,
    );
    expect(dev.body.errorCode).toBe("FORM_INVALID");
  });

  it("answer device_publish for an offline device with publishStatus 1 and keep its control log issued (queued)", async () => {
    const d = (await t.call("POST", "/devices", { productID, deviceName: "off", upLinkSystem: 1, authType: 1 }, token))
      .body;
    const r = await t.call("POST", "/device_publish", { deviceID: d.deviceID, payload: "hello" }, token);
    expect(r.status).toBe(201);
    expect(r.body.publishStatus).toBe("1");
    const logs = await t.call("GET", `/devices/${d.id}/control_logs`, undefined, token);
    expect(logs.body.items[0]).toMatchObject({
      id: r.body.controlLogIntID,
      payload: "hello",
      topic: "inbox",
      publishStatus: 1,
      publishUser: "admin",
      deviceName: "off",
    });
  });
  it("take qos 2 on device_publish (recorded with the log) and refuse qos 3 naming the field", async () => {
    const d = (await t.call("POST", "/devices", { productID, deviceName: "q2", upLinkSystem: 1, authType: 1 }, token))
      .body;
    const r = await t.call("POST", "/device_publish", { deviceID: d.deviceID, payload: "once", qos: 2 }, token);
    expect(r.status).toBe(201);
    expect(r.body.publishStatus).toBe("1");
    const log = await t.store.db
      .selectFrom("controlLogs")
      .select(["qos", "publishStatus"])
      .where("id", "=", r.body.controlLogIntID)
      .executeTakeFirstOrThrow();
    expect(log).toEqual({ qos: 2, publishStatus: 1 });
    const bad = await t.call("POST", "/device_publish", { deviceID: d.deviceID, payload: "x", qos: 3 }, token);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { qos: "must be one of 0, 1, 2" } });
  });
});

describe("device edit and delete (Form 1)", () => {
  it("sorts the device list by name either way", async () => {
    const productID = await product(1);
    for (const deviceName of ["sort-b", "sort-c", "sort-a"])
      await call("POST", "/devices", { productID, deviceName, deviceType: 1, upLinkSystem: 1, authType: 1 });
    const names = async (order: string) =>
      (await call("GET", `/devices?deviceName_like=sort-&_sort=deviceName&_order=${order}`)).body.items.map(
        (d: { deviceName: string }) => d.deviceName,
      );
    expect(await names("asc")).toEqual(["sort-a", "sort-b", "sort-c"]);
    expect(await names("desc")).toEqual(["sort-c", "sort-b", "sort-a"]);
  });

  it("edits with the whole record sent back, ignoring read-only fields, and sets updateAt", async () => {
    const productID = await product(1);
    const created = (
      await call("POST", "/devices", { productID, deviceName: "e", deviceType: 1, upLinkSystem: 1, authType: 1 })
    ).body;
    const detail = (await call("GET", `/devices/${created.id}`)).body;
    const r = await call("PUT", `/devices/${created.id}`, {
      ...detail,
      deviceName: "renamed",
      id: 999,
      createAt: "2000-01-01 00:00:00",
      deviceStatusLabel: "x",
      latitude: "12.5",
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: created.id, deviceName: "renamed", latitude: 12.5, createAt: created.createAt });
    expect(r.body.updateAt).toMatch(/^\d{4}-/);
    expect(r.body).not.toHaveProperty("deviceStatusLabel");
    const moved = await call("PUT", `/devices/${created.id}`, { productID: await product(1) });
    expect(moved.body).toMatchObject({
      errorCode: "FORM_INVALID",
      errors: { productID: "cannot change after creation" },
    });
  });

  it("ends the live sessions of a device when it is blocked or its token changes", async () => {
    const productID = await product(1);
    const d = (
      await call("POST", "/devices", { productID, deviceName: "k", deviceType: 1, upLinkSystem: 1, authType: 1 })
    ).body;
    const live = t.attachDevice(d.id, d.tenantID);
    const kicks = live.sent.kicks;
    expect((await call("PUT", `/devices/${d.id}`, { blocked: 1 })).body.blocked).toBe(1);
    expect((await call("PUT", `/devices/${d.id}`, { token: "a-brand-new-token" })).status).toBe(200);
    expect((await call("PUT", `/devices/${d.id}`, { deviceName: "no kick" })).status).toBe(200);
    expect(kicks).toEqual([
      [d.id, "device blocked"],
      [d.id, "token changed"],
    ]);
    await call("DELETE", `/devices?ids=${d.id}`);
    expect(kicks.at(-1)).toEqual([d.id, "device deleted"]);
    live.detach();
  });

  it("deletes with 204, refusing a device that still has children and a gateway that still has devices", async () => {
    const productID = await product(1);
    const mk = async (extra: object) =>
      (await call("POST", "/devices", { productID, deviceName: "x", deviceType: 1, authType: 1, ...extra })).body;
    const upper = await mk({ upLinkSystem: 1 });
    const child = await mk({ upLinkSystem: 3, parentDevice: upper.id });
    const del = await call("DELETE", `/devices?ids=${upper.id}`);
    expect(del.status).toBe(400);
    expect(del.body).toMatchObject({
      errorCode: "REFERENCED_ERROR",
      errors: { device: "the device still has child devices" },
    });
    expect((await call("DELETE", `/devices?ids=${upper.id},${child.id}`)).status).toBe(204);
    expect((await call("GET", `/devices/${upper.id}`)).status).toBe(404);

    const gw = await gatewayOf(productID);
    const under = await mk({ upLinkSystem: 2, gateway: gw.id });
    expect((await call("DELETE", `/gateways?ids=${gw.id}`)).body).toMatchObject({
      errorCode: "REFERENCED_ERROR",
      errors: { device: "the gateway still has devices" },
    });
    // /devices deletes a gateway by the same rules (GET and PUT /devices/{id} reach gateways too).
    expect((await call("DELETE", `/devices?ids=${gw.id}`)).body).toMatchObject({
      errorCode: "REFERENCED_ERROR",
      errors: { device: "the gateway still has devices" },
    });
    expect((await call("DELETE", `/devices?ids=${under.id}`)).status).toBe(204);
    expect((await call("DELETE", `/devices?ids=${gw.id}`)).status).toBe(204);
    expect((await call("GET", `/gateways/${gw.id}`)).status).toBe(404);
    const gw2 = await gatewayOf(productID);
    expect((await call("DELETE", `/gateways?ids=${gw2.id}`)).status).toBe(204);
    expect((await call("DELETE", "/devices?ids=1,x")).body.errorCode).toBe("PARAMETER_INVALID");
  });

  it("stores the certificates an authType 2 device is bound to", async () => {
    const productID = await product(1);
    const newCert = async (name: string) => (await call("POST", "/certs", { name, enable: 1 })).body.id as number;
    const a = await newCert("a");
    const b = await newCert("b");
    const d = await call("POST", "/devices", {
      productID,
      deviceName: "c",
      deviceType: 1,
      upLinkSystem: 1,
      authType: 2,
      certs: [a, String(b), a],
    });
    expect(d.body.certs).toEqual([a, b]);
    expect((await call("PUT", `/devices/${d.body.id}`, { certs: [b] })).body.certs).toEqual([b]);
  });
});

describe("device list filters (Form 1)", () => {
  it("filter deviceType_like by Form 1's codes: 1 terminal, 3 smartphone", async () => {
    const productID = (await call("POST", "/products", { productName: "kinds", cloudProtocol: 1 })).body.productID;
    await call("POST", "/devices", { productID, deviceName: "Term", deviceType: 1, upLinkSystem: 1, authType: 1 });
    await call("POST", "/devices", { productID, deviceName: "Phone", deviceType: 3, authType: 1 });
    const names = async (q: string) =>
      (await call("GET", `/devices?productID=${productID}&${q}`)).body.items.map(
        (x: { deviceName: string }) => x.deviceName,
      );
    expect(await names("deviceType_like=1")).toEqual(["Term"]);
    expect(await names("deviceType_like=3")).toEqual(["Phone"]);
    expect((await call("GET", "/devices?deviceType_like=0")).body).toMatchObject({
      errorCode: "PARAMETER_INVALID",
      errors: { deviceType_like: "must be 1, 2 or 3" },
    });
  });
});
