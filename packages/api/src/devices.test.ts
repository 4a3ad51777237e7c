import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testApp } from "./test-app.js";

type T = Awaited<ReturnType<typeof testApp>>;
let t: T;
let token: string;
const call = (method: string, path: string, body?: unknown) => t.call(method, path, body, token);
const product = async (cloudProtocol: number) =>
  (await call("POST", "/products", { productName: `p${cloudProtocol}`, cloudProtocol })).body.productID as string;
const gatewayOf = async (productID: string, name = "gw") =>
  (await call("POST", "/gateways", { productID, gatewayName: name, gatewayProtocol: 7, upLinkNetwork: 4, authType: 1 }))
    .body as { id: number };

beforeAll(async () => {
  t = await testApp("1");
  token = await t.login();
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

describe("gateways (Form 1)", () => {
  it("are created, listed with deviceCount and labels, edited and listed apart from devices", async () => {
    const productID = await product(1);
    const g = await call("POST", "/gateways", {
      productID,
      gatewayName: "edge-1",
      gatewayProtocol: 7,
      upLinkNetwork: 4,
      upLinkProtocol: 1,
      mac: "00:1A:2B:3C:4D:5E",
      authType: 1,
    });
    expect(g.status).toBe(201);
    expect(g.body).toMatchObject({ gatewayName: "edge-1", gatewayProtocol: 7, mac: "00:1A:2B:3C:4D:5E" });
    expect(g.body.deviceUsername).toHaveLength(36);
    await call("POST", "/devices", {
      productID,
      deviceName: "under",
      deviceType: 1,
      upLinkSystem: 2,
      gateway: g.body.id,
      authType: 1,
    });
    const list = (await call("GET", "/gateways?gatewayName_like=edge")).body;
    expect(list.items[0]).toMatchObject({
      id: g.body.id,
      deviceCount: 1,
      gatewayProtocolLabel: "Modbus",
      upLinkNetworkLabel: "Wi-Fi",
      productName: "p1",
    });
    expect((await call("GET", `/devices?gateway=${g.body.id}`)).body.meta.count).toBe(1);
    const devices = (await call("GET", "/devices?_limit=1000")).body.items;
    expect(devices.some((d: { id: number }) => d.id === g.body.id)).toBe(false);
    const edited = await call("PUT", `/gateways/${g.body.id}`, { gatewayName: "edge-renamed", deviceCount: 99 });
    expect(edited.body.gatewayName).toBe("edge-renamed");
    const bad = await call("POST", "/gateways", { productID, gatewayName: "x", gatewayProtocol: 9, mac: "zz" });
    expect(bad.body).toMatchObject({
      errorCode: "FORM_INVALID",
      errors: { gatewayProtocol: expect.any(String), mac: expect.any(String) },
    });
    expect((await call("GET", `/gateways/${(devices[0] as { id: number }).id}`)).status).toBe(404);
    expect((await call("GET", `/gateways/${g.body.id}/events`)).body.meta.count).toBe(0);
    expect((await call("GET", `/gateways/${g.body.id}/control_logs`)).body.items).toEqual([]);
  });

  it("list commands sent to a gateway as gateway control logs, payload an object", async () => {
    const productID = await product(7);
    const gw = (await call("POST", "/gateways", { productID, gatewayName: "cfg", gatewayProtocol: 7, authType: 1 }))
      .body;
    const channel = { channel: [{ chnname: "c1", chnno: 1, device: [{ tagname: "t", tagaddr: "1!400001" }] }] };
    for (const payload of [JSON.stringify(channel), "reboot", "[1,2]"])
      expect((await call("POST", "/device_publish", { deviceID: gw.deviceID, payload })).status).toBe(201);
    const logs = (await call("GET", `/gateways/${gw.id}/control_logs`)).body;
    expect(logs.meta.count).toBe(3);
    for (const l of logs.items) {
      expect(Object.keys(l).sort()).toEqual([
        "createAt",
        "createUser",
        "deviceIntID",
        "id",
        "payload",
        "publishResult",
        "publishStatus",
      ]);
      expect(l).toMatchObject({ deviceIntID: gw.id, createUser: "admin", createAt: expect.stringMatching(/^\d{4}-/) });
    }
    expect(logs.items.map((l: { payload: unknown }) => l.payload)).toEqual([
      { text: "[1,2]" },
      { text: "reboot" },
      channel,
    ]);
  });

  it("labels in Chinese when the caller asks for zh", async () => {
    const r = await t.call("GET", "/gateways", undefined, token, { "accept-language": "zh-CN,zh;q=0.9" });
    expect(r.body.items[0]).toMatchObject({ authTypeLabel: "密钥", deviceStatusLabel: "离线" });
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

describe("Form 2 devices", () => {
  let f2: T;
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

describe("OpenAPI", () => {
  it("documents every endpoint from the schemas that validate it, and serves the docs", async () => {
    const doc = (await (await t.app.request("/api/v1/openapi.json")).json()) as any;
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/devices",
        "/api/v1/devices/{id}",
        "/api/v1/gateways",
        "/api/v1/products",
        "/api/v1/login",
        "/api/v1/device_publish",
      ]),
    );
    const create = doc.paths["/api/v1/devices"].post;
    expect(create.requestBody.content["application/json"].schema.required).toEqual(
      expect.arrayContaining(["productID", "deviceName"]),
    );
    expect(create.responses["201"]).toBeDefined();
    expect(doc.paths["/api/v1/devices"].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["_page", "_limit", "gateway"]),
    );
    const page = await t.app.request("/api/v1/docs");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("SwaggerUIBundle");
    const js = await t.app.request("/api/v1/docs/swagger-ui-bundle.js");
    expect(js.headers.get("content-type")).toContain("javascript");
    expect((await js.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});
