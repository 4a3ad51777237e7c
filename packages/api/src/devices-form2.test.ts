import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testApp, type TestApp } from "./test-app.js";

describe("Form 2 devices", () => {
  let f2: TestApp;
  let tok: string;
  beforeAll(async () => {
    f2 = await testApp("2");
    tok = await f2.login();
  });
  afterAll(() => f2.close());
  const c2 = (method: string, path: string, body?: unknown) => f2.call(method, path, body, tok);

  it("are created with deviceType 0/1/2 and authType, and shown with status and broker addresses", async () => {
    const productID = (await c2("POST", "/products", { productName: "f2", description: "required in Form 2" })).body
      .productID;
    expect((await c2("POST", "/products", { productName: "no description" })).body.errors).toHaveProperty(
      "description",
    );
    const missing = await c2("POST", "/devices", { productID, deviceName: "d" });
    expect(Object.keys(missing.body.errors).sort()).toEqual(["authType", "deviceType"]);
    const d = await c2("POST", "/devices", { productID, deviceName: "term", deviceType: 0, authType: 1 });
    expect(d.status).toBe(201);
    expect(d.body).toMatchObject({ deviceType: 0, authType: 1 });
    expect(d.body.deviceID).toHaveLength(36);
    const gw = await c2("POST", "/devices", { productID, deviceName: "gw", deviceType: 1, authType: 1 });
    expect(gw.body.deviceType).toBe(1);
    const list = (await c2("GET", "/devices")).body;
    expect(list.items.map((x: { deviceType: number }) => x.deviceType)).toEqual([1, 0]);
    expect(list.items[1]).toMatchObject({
      status: 0,
      statusLabel: "Offline",
      deviceTypeLabel: "Terminal",
      productName: "f2",
    });
    expect(list.items[1]).not.toHaveProperty("deviceStatus");
    const detail = (await c2("GET", `/devices/${d.body.id}`)).body;
    expect(detail).toMatchObject({
      mqttBroker: "iot.example:1883",
      mqttsBroker: "iot.example:8883",
      createUser: "admin",
      clientIP: null,
    });
    const product = (await c2("GET", `/products`)).body.items[0];
    expect(product.devices).toEqual([{ id: gw.body.id }, { id: d.body.id }].sort((a, b) => a.id - b.id));
    expect(product).not.toHaveProperty("cloudProtocol");
  });

  it("filter by name, deviceID, deviceType and product", async () => {
    const productID = (await c2("POST", "/products", { productName: "filters", description: "x" })).body.productID;
    await c2("POST", "/devices", {
      productID,
      deviceName: "Alpha-1",
      deviceType: 0,
      authType: 1,
      deviceID: "alpha-id",
    });
    await c2("POST", "/devices", { productID, deviceName: "Beta", deviceType: 2, authType: 1 });
    const names = async (q: string) =>
      (await c2("GET", `/devices?${q}`)).body.items.map((x: { deviceName: string }) => x.deviceName);
    expect(await names("deviceName_like=alpha")).toEqual(["Alpha-1"]);
    expect(await names("deviceID_like=ALPHA-I")).toEqual(["Alpha-1"]);
    expect(await names(`deviceType_like=2&productID=${productID}`)).toEqual(["Beta"]);
    expect((await c2("GET", "/devices?deviceType_like=7")).body).toMatchObject({
      errorCode: "PARAMETER_INVALID",
      errors: { deviceType_like: "must be 0, 1 or 2" },
    });
  });

  it("edit only the Form 2 members and block a device", async () => {
    const productID = (await c2("POST", "/products", { productName: "edit", description: "x" })).body.productID;
    const d = (await c2("POST", "/devices", { productID, deviceName: "e", deviceType: 0, authType: 1 })).body;
    const r = await c2("PUT", `/devices/${d.id}`, {
      deviceName: "e2",
      blocked: 1,
      softVersion: "1.2",
      token: "ignored-in-form-2",
      status: 1,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ deviceName: "e2", blocked: 1, softVersion: "1.2", token: d.token });
  });

  it("change deviceType between terminal and smartphone without Form 1 errors about upLinkSystem", async () => {
    const productID = (await c2("POST", "/products", { productName: "kinds", description: "x" })).body.productID;
    const d = (await c2("POST", "/devices", { productID, deviceName: "k", deviceType: 0, authType: 1 })).body;
    const phone = await c2("PUT", `/devices/${d.id}`, { ...d, deviceType: 2 });
    expect(phone.status).toBe(200);
    expect(phone.body).toMatchObject({ deviceType: 2, deviceName: "k" });
    expect((await c2("GET", `/devices/${d.id}`)).body.deviceTypeLabel).toBe("Smartphone");
    const back = await c2("PUT", `/devices/${d.id}`, { deviceType: 0 });
    expect(back.status).toBe(200);
    expect(back.body.deviceType).toBe(0);
    // Unchanged kinds and a device that cannot become a gateway behave as before.
    expect((await c2("PUT", `/devices/${d.id}`, { deviceType: 0, deviceName: "same" })).status).toBe(200);
    expect((await c2("PUT", `/devices/${d.id}`, { deviceType: 1 })).body).toMatchObject({
      errorCode: "FORM_INVALID",
      errors: { deviceType: expect.any(String) },
    });
  });
});
