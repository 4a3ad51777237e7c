import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firmwareDir, lwm2mDevice, lwm2mProduct, uploadFirmware } from "./firmware-fixture.js";
import { testApp, type TestApp } from "./test-app.js";

let t: TestApp;
let token: string;
let eveToken: string;
let viewerToken: string;
let productID: string;
let eveProductID: string;

beforeAll(async () => {
  t = await testApp("1", { deps: { firmwareDir: firmwareDir(), firmwareMaxBytes: 2048 } });
  token = await t.login();
  await t.addTenant("tenant2");
  const eve = await t.addUser("tenant2", "eve", "admin");
  eveToken = eve.token;
  viewerToken = (
    await t.addUser(
      (await t.store.db.selectFrom("users").select("tenantId").where("id", "=", 1).executeTakeFirstOrThrow()).tenantId,
      "viewer",
      "viewer",
    )
  ).token;
  productID = await lwm2mProduct(t, 1);
  eveProductID = await lwm2mProduct(t, eve.caller.userIntId, "Eve's");
});
afterAll(() => t.close());

describe("firmware packages", () => {
  it("are seen, updated and deleted only by their own tenant", async () => {
    const fw = (await uploadFirmware(t, token, { name: "app", version: "1.0.0", productID }, new Uint8Array(10))).body;
    expect((await t.call("GET", `/firmwares/${fw.firmwareID}`, undefined, eveToken)).status).toBe(404);
    expect((await t.call("GET", "/firmwares", undefined, eveToken)).body.items).toEqual([]);
    expect((await t.call("DELETE", `/firmwares/${fw.firmwareID}`, undefined, eveToken)).status).toBe(404);
    const update = await t.call("POST", `/firmwares/${fw.firmwareID}/update`, { deviceIDs: ["x"] }, eveToken);
    expect(update.status).toBe(404);
    // A product of another tenant is no product to the caller.
    const foreign = await uploadFirmware(
      t,
      token,
      { name: "app", version: "1.0.1", productID: eveProductID },
      new Uint8Array(10),
    );
    expect(foreign).toMatchObject({ status: 400, body: { errors: { productID: "no such product" } } });
    // Nor is another tenant's device a device of the package's product.
    const eveDevice = await lwm2mDevice(t, 2, eveProductID, "490154203237519");
    const theirs = await t.call("POST", `/firmwares/${fw.firmwareID}/update`, { deviceIDs: [eveDevice] }, token);
    expect(theirs.body.errors).toEqual({ deviceIDs: `${eveDevice}: no such device` });
  });

  it("may be read but not written by a viewer", async () => {
    const fw = (await uploadFirmware(t, token, { name: "app", version: "2.0.0", productID }, new Uint8Array(10))).body;
    expect((await t.call("GET", `/firmwares/${fw.firmwareID}`, undefined, viewerToken)).status).toBe(200);
    expect(
      (await uploadFirmware(t, viewerToken, { name: "v", version: "1", productID }, new Uint8Array(1))).status,
    ).toBe(403);
    expect((await t.call("DELETE", `/firmwares/${fw.firmwareID}`, undefined, viewerToken)).status).toBe(403);
  });

  it("answer 400 naming the field for a file over IOT_FIRMWARE_MAX_BYTES, an empty one, or an MQTT product", async () => {
    const big = await uploadFirmware(t, token, { name: "big", version: "1", productID }, new Uint8Array(3000));
    expect(big).toMatchObject({ status: 400, body: { errors: { package: "at most 2048 bytes" } } });
    const empty = await uploadFirmware(t, token, { name: "e", version: "1", productID }, new Uint8Array(0));
    expect(empty).toMatchObject({ status: 400, body: { errors: { package: "is empty" } } });
    const mqtt = (await t.call("POST", "/products", { productName: "mqtt", cloudProtocol: 1 }, token)).body.productID;
    const wrong = await uploadFirmware(t, token, { name: "m", version: "1", productID: mqtt }, new Uint8Array(1));
    expect(wrong).toMatchObject({ status: 400, body: { errors: { productID: "is not an LwM2M product" } } });
  });
});
