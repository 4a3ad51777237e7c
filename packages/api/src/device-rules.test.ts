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

describe("device creation rules (Form 1)", () => {
  const expectInvalid = (r: { status: number; body: any }, fields: Record<string, unknown>) => {
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe("FORM_INVALID");
    expect(r.body.errors).toMatchObject(fields);
  };

  it("requires authType for MQTT, CoAP, HTTP and WebSocket devices, and upLinkSystem for terminals", async () => {
    for (const protocol of [1, 2, 5, 6]) {
      const productID = await product(protocol);
      expectInvalid(await call("POST", "/devices", { productID, deviceName: "d", deviceType: 1 }), {
        authType: "required",
        upLinkSystem: "required when deviceType is 1",
      });
    }
  });

  it("refuses upLinkSystem on a smartphone and requires a gateway or upper device by upLinkSystem", async () => {
    const productID = await product(1);
    expectInvalid(
      await call("POST", "/devices", { productID, deviceName: "d", deviceType: 3, upLinkSystem: 1, authType: 1 }),
      { upLinkSystem: "must be empty unless deviceType is 1" },
    );
    expectInvalid(
      await call("POST", "/devices", { productID, deviceName: "d", deviceType: 1, upLinkSystem: 2, authType: 1 }),
      { gateway: "required when upLinkSystem is 2" },
    );
    expectInvalid(
      await call("POST", "/devices", { productID, deviceName: "d", deviceType: 1, upLinkSystem: 3, authType: 1 }),
      { parentDevice: "required when upLinkSystem is 3" },
    );
    expectInvalid(
      await call("POST", "/devices", {
        productID,
        deviceName: "d",
        deviceType: 1,
        upLinkSystem: 3,
        parentDevice: 424242,
        authType: 1,
      }),
      { parentDevice: "no such device" },
    );
  });

  it("refuses a gateway or upper device on a device that does not connect through it, on create and on edit", async () => {
    const productID = await product(1);
    const gw = await gatewayOf(productID, "not-mine");
    const upper = (
      await call("POST", "/devices", { productID, deviceName: "up", deviceType: 1, upLinkSystem: 1, authType: 1 })
    ).body;
    const base = { productID, deviceName: "d", deviceType: 1, authType: 1 };
    expectInvalid(await call("POST", "/devices", { ...base, upLinkSystem: 1, gateway: gw.id }), {
      gateway: "must be empty unless upLinkSystem is 2",
    });
    expectInvalid(
      await call("POST", "/devices", { ...base, upLinkSystem: 2, parentDevice: upper.id, gateway: gw.id }),
      {
        parentDevice: "must be empty unless upLinkSystem is 3",
      },
    );
    expectInvalid(await call("POST", "/devices", { ...base, deviceType: 3, gateway: gw.id }), {
      gateway: "must be empty unless upLinkSystem is 2",
    });
    expect((await call("GET", `/devices?gateway=${gw.id}`)).body.meta.count).toBe(0);
    expect((await call("GET", `/gateways/${gw.id}`)).body.deviceCount).toBe(0);
    // On edit: leaving the gateway while keeping it named is refused; clearing it is fine.
    const under = (await call("POST", "/devices", { ...base, upLinkSystem: 2, gateway: gw.id })).body;
    expectInvalid(await call("PUT", `/devices/${under.id}`, { upLinkSystem: 1 }), {
      gateway: "must be empty unless upLinkSystem is 2",
    });
    const moved = await call("PUT", `/devices/${under.id}`, { upLinkSystem: 1, gateway: null });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ upLinkSystem: 1, gateway: null });
    expect((await call("GET", `/gateways/${gw.id}`)).body.deviceCount).toBe(0);
  });

  it("creates child devices under an upper device and lists them with parentDevice", async () => {
    const productID = await product(1);
    const parent = (
      await call("POST", "/devices", { productID, deviceName: "upper", deviceType: 1, upLinkSystem: 1, authType: 1 })
    ).body;
    const child = await call("POST", "/devices", {
      productID,
      deviceName: "child",
      deviceType: 1,
      upLinkSystem: 3,
      parentDevice: String(parent.id),
      authType: 1,
    });
    expect(child.status).toBe(201);
    expect(child.body.parentDevice).toBe(parent.id);
    const listed = (await call("GET", `/devices?parentDevice=${parent.id}`)).body;
    expect(listed.items.map((d: { id: number }) => d.id)).toEqual([child.body.id]);
    expect((await call("GET", `/devices/${child.body.id}`)).body.parentDeviceName).toBe("upper");
    // An upper device cannot move under its own child.
    expectInvalid(await call("PUT", `/devices/${parent.id}`, { upLinkSystem: 3, parentDevice: child.body.id }), {
      parentDevice: "would make a loop of upper devices",
    });
  });

  it("requires IMEI and autoSub for LwM2M devices", async () => {
    const productID = await product(3);
    expectInvalid(await call("POST", "/devices", { productID, deviceName: "d", deviceType: 1, upLinkSystem: 1 }), {
      IMEI: "required for LwM2M devices",
      autoSub: "required for LwM2M devices",
    });
    expectInvalid(
      await call("POST", "/devices", {
        productID,
        deviceName: "d",
        deviceType: 1,
        upLinkSystem: 1,
        IMEI: "12ab",
        autoSub: 1,
      }),
      { IMEI: "must be 14 to 16 digits" },
    );
    expect(
      (
        await call("POST", "/devices", {
          productID,
          deviceName: "d",
          deviceType: 1,
          upLinkSystem: 1,
          IMEI: "490154203237518",
          autoSub: 1,
        })
      ).status,
    ).toBe(201);
  });

  it("refuses an IMEI another device has (the LwM2M endpoint name) with DATA_EXISTED, on create and on edit", async () => {
    const productID = await product(3);
    const dev = (IMEI: string) =>
      call("POST", "/devices", { productID, deviceName: "m", deviceType: 1, upLinkSystem: 1, IMEI, autoSub: 1 });
    expect((await dev("356938035643809")).status).toBe(201);
    const again = await dev("356938035643809");
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ errorCode: "DATA_EXISTED", errors: { IMEI: "already exists" } });
    const other = (await dev("356938035643810")).body;
    expect((await call("PUT", `/devices/${other.id}`, { IMEI: "356938035643809" })).body).toMatchObject({
      errorCode: "DATA_EXISTED",
      errors: { IMEI: "already exists" },
    });
  });

  it("requires the otaa members for LoRa otaa devices, with the DevEUI as deviceID", async () => {
    const productID = await product(4);
    const base = { productID, deviceName: "lora", deviceType: 1, upLinkSystem: 1 };
    expectInvalid(await call("POST", "/devices", { ...base, lora: { type: "otaa" } }), {
      deviceID: "must be the DevEUI: 16 hex digits",
      "lora.appEUI": "required",
      "lora.appKey": "required",
      "lora.fcntCheck": "required",
      "lora.canJoin": "required",
    });
    expectInvalid(await call("POST", "/devices", { ...base }), { "lora.type": "required: otaa or abp" });
    const ok = await call("POST", "/devices", {
      ...base,
      deviceID: "70B3D57ED0000001",
      lora: {
        type: "otaa",
        appEUI: "70B3D57ED0000000",
        appKey: "2B7E151628AED2A6ABF7158809CF4F3C",
        fcntCheck: 1,
        canJoin: true,
      },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.lora).toMatchObject({ type: "otaa", canJoin: true });
  });

  it("requires a gateway, the DevAddr and session keys for LoRa abp devices", async () => {
    const productID = await product(4);
    const base = {
      productID,
      deviceName: "abp",
      deviceType: 1,
      upLinkSystem: 1,
      lora: { type: "abp", region: "XX1", fcntCheck: 0 },
    };
    expectInvalid(await call("POST", "/devices", base), {
      gateway: "required for LoRa abp devices",
      deviceID: "must be the DevAddr: 8 hex digits",
      "lora.region": expect.stringContaining("must be one of"),
      "lora.nwkSKey": "required",
      "lora.appSKey": "required",
      "lora.fcntUp": "required",
      "lora.fcntDown": "required",
    });
    const gw = await gatewayOf(await product(4), "lora-gw");
    const keys = {
      nwkSKey: "2B7E151628AED2A6ABF7158809CF4F3C",
      appSKey: "2B7E151628AED2A6ABF7158809CF4F3D",
      fcntUp: 0,
      fcntDown: 0,
    };
    const ok = await call("POST", "/devices", {
      ...base,
      upLinkSystem: 2,
      gateway: gw.id,
      deviceID: "26011BDA",
      lora: { ...base.lora, region: "EU868", ...keys },
    });
    expect(ok.body).toMatchObject({ deviceID: "26011BDA", gateway: gw.id });
  });

  it("accepts every RP002 region for LoRa devices and names lora.region when it is not one", async () => {
    const productID = await product(4);
    const otaa = (deviceID: string, region: unknown) => ({
      productID,
      deviceName: "lora region",
      deviceType: 1,
      upLinkSystem: 1,
      deviceID,
      lora: {
        type: "otaa",
        appEUI: "70B3D57ED0000000",
        appKey: "2B7E151628AED2A6ABF7158809CF4F3C",
        fcntCheck: 1,
        canJoin: true,
        region,
      },
    });
    expectInvalid(await call("POST", "/devices", otaa("70B3D57ED00000F0", "AS923-9")), {
      "lora.region": expect.stringContaining("must be one of"),
    });
    const regions = ["AU915", "AS923-1", "AS923-2", "AS923-3", "AS923-4", "KR920", "IN865", "RU864"];
    for (const [i, region] of regions.entries()) {
      const r = await call("POST", "/devices", otaa(`70B3D57ED00000A${i}`, region));
      expect(r.status).toBe(201);
      expect(r.body.lora).toMatchObject({ region });
    }
  });

  it("requires modBusIndex 0..255 for Modbus devices, unique among the devices of one gateway, on create and on edit", async () => {
    const productID = await product(7);
    const gw1 = await gatewayOf(productID, "mb-gw-1");
    const gw2 = await gatewayOf(productID, "mb-gw-2");
    const dev = (gateway: number, modBusIndex?: unknown) => ({
      productID,
      deviceName: "mb",
      deviceType: 1,
      upLinkSystem: 2,
      gateway,
      authType: 1,
      modBusIndex,
    });
    expectInvalid(await call("POST", "/devices", dev(gw1.id)), { modBusIndex: "required for Modbus devices" });
    expectInvalid(await call("POST", "/devices", dev(gw1.id, 256)), { modBusIndex: "must be 0 to 255" });
    const first = await call("POST", "/devices", dev(gw1.id, "7"));
    expect(first.status).toBe(201);
    expect(first.body.modBusIndex).toBe(7);
    expectInvalid(await call("POST", "/devices", dev(gw1.id, 7)), { modBusIndex: "already used by a sibling device" });
    const other = await call("POST", "/devices", dev(gw2.id, 7));
    expect(other.status).toBe(201);
    // Moving the second device under the first gateway would clash too.
    expectInvalid(await call("PUT", `/devices/${other.body.id}`, { gateway: gw1.id }), {
      modBusIndex: "already used by a sibling device",
    });
    expect((await call("PUT", `/devices/${other.body.id}`, { gateway: gw1.id, modBusIndex: 8 })).status).toBe(200);
    expect((await call("GET", `/gateways/${gw1.id}`)).body.deviceCount).toBe(2);
  });
});
