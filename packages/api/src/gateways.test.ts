import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCalls } from "./devices-fixture.js";
import { adminApp, type TestApp } from "./test-app.js";

let t: TestApp;
let token: string;
const { call, product } = adminCalls(() => ({ t, token }));

beforeAll(async () => {
  ({ t, token } = await adminApp());
});
afterAll(() => t.close());

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
