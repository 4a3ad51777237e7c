import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCalls } from "./devices-fixture.js";
import { deviceRecords } from "./forms/devices.js";
import { adminApp, testApp, type TestApp } from "./test-app.js";

let t: TestApp;
let token: string;
const { call, product } = adminCalls(() => ({ t, token }));
let imei = 352000000099000;

beforeAll(async () => {
  ({ t, token } = await adminApp());
});
afterAll(() => t.close());

const lwm2mDevice = (productID: string, more: Record<string, unknown> = {}) =>
  call("POST", "/devices", {
    productID,
    deviceName: "meter",
    deviceType: 1,
    upLinkSystem: 1,
    IMEI: String(imei++),
    autoSub: 0,
    ...more,
  });

describe("LwM2M bootstrap settings in the device record", () => {
  it("stores the settings given on create and shows them in the detail view, null where the deployment's default applies", async () => {
    const productID = await product(3);
    const created = await lwm2mDevice(productID, {
      lwm2mBootstrap: { securityMode: "nosec", lifetime: 45, binding: "UQ" },
    });
    expect(created.status).toBe(201);
    const detail = await call("GET", `/devices/${created.body.id}`);
    expect(detail.body.lwm2mBootstrap).toEqual({ securityMode: "nosec", serverUri: null, lifetime: 45, binding: "UQ" });
    expect(deviceRecords["1"].detail.strict().safeParse(detail.body).error).toBeUndefined();
    const plain = await lwm2mDevice(productID);
    expect((await call("GET", `/devices/${plain.body.id}`)).body.lwm2mBootstrap).toEqual({
      securityMode: null,
      serverUri: null,
      lifetime: null,
      binding: null,
    });
  });

  it("replaces the settings on edit, and null clears them", async () => {
    const productID = await product(3);
    const { body } = await lwm2mDevice(productID, { lwm2mBootstrap: { lifetime: 45 } });
    const settings = { securityMode: "psk", serverUri: "coaps://iot.example.com:5784", lifetime: 600, binding: "U" };
    expect((await call("PUT", `/devices/${body.id}`, { lwm2mBootstrap: settings })).status).toBe(200);
    expect((await call("GET", `/devices/${body.id}`)).body.lwm2mBootstrap).toEqual(settings);
    expect((await call("PUT", `/devices/${body.id}`, { lwm2mBootstrap: null })).status).toBe(200);
    expect((await call("GET", `/devices/${body.id}`)).body.lwm2mBootstrap).toMatchObject({ lifetime: null });
  });

  it("answers 400 naming each member that is not valid", async () => {
    const productID = await product(3);
    const r = await lwm2mDevice(productID, {
      lwm2mBootstrap: { securityMode: "dtls", serverUri: "http://x", lifetime: 0, binding: "UU" },
    });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors).sort()).toEqual([
      "lwm2mBootstrap.binding",
      "lwm2mBootstrap.lifetime",
      "lwm2mBootstrap.securityMode",
      "lwm2mBootstrap.serverUri",
    ]);
    const extra = await lwm2mDevice(productID, { lwm2mBootstrap: { port: 1 } });
    expect([extra.status, Object.keys(extra.body.errors)]).toEqual([400, ["lwm2mBootstrap.port"]]);
  });

  it("refuses settings that do not fit the record: another protocol, a mode the credentials cannot serve, a URI of the other scheme", async () => {
    const mqtt = await product(1);
    const other = await call("POST", "/devices", {
      productID: mqtt,
      deviceName: "m",
      deviceType: 1,
      upLinkSystem: 1,
      authType: 1,
      lwm2mBootstrap: { lifetime: 60 },
    });
    expect([other.status, other.body.errors]).toEqual([400, { lwm2mBootstrap: "only for LwM2M devices" }]);
    const productID = await product(3);
    const cert = await lwm2mDevice(productID, { authType: 1, lwm2mBootstrap: { securityMode: "certificate" } });
    expect(cert.body.errors).toEqual({
      "lwm2mBootstrap.securityMode": "certificate needs certificate credentials (authType 2)",
    });
    const scheme = await lwm2mDevice(productID, {
      lwm2mBootstrap: { securityMode: "psk", serverUri: "coap://iot.example.com:5783" },
    });
    expect(scheme.body.errors).toEqual({ "lwm2mBootstrap.serverUri": "must be a coaps:// URI for psk" });
  });

  it("shows the settings in the Form 2 detail view and takes them on a Form 2 edit", async () => {
    const { body } = await lwm2mDevice(await product(3), { lwm2mBootstrap: { binding: "U" } });
    // A Form 2 app over the same store (Form 2 bodies carry no IMEI, so the device comes from Form 1); the store is
    // closed with the Form 1 app.
    const t2 = await testApp("2", { open: async () => t.store });
    const token2 = await t2.login();
    const shown = await t2.call("GET", `/devices/${body.id}`, undefined, token2);
    expect(shown.body.lwm2mBootstrap).toEqual({ securityMode: null, serverUri: null, lifetime: null, binding: "U" });
    expect(deviceRecords["2"].detail.safeParse(shown.body).error).toBeUndefined();
    const edit = await t2.call("PUT", `/devices/${body.id}`, { lwm2mBootstrap: { lifetime: 30 } }, token2);
    expect(edit.status).toBe(200);
    const after = await t2.call("GET", `/devices/${body.id}`, undefined, token2);
    expect(after.body.lwm2mBootstrap).toMatchObject({ lifetime: 30, binding: null });
    const invalid = await t2.call("PUT", `/devices/${body.id}`, { lwm2mBootstrap: { binding: "X" } }, token2);
    expect([invalid.status, Object.keys(invalid.body.errors)]).toEqual([400, ["lwm2mBootstrap.binding"]]);
  });
});
