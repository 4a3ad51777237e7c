import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testApp } from "./test-app.js";

describe("Modbus gateways, slaves and their commands through the API", () => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let token: string;
  let productID: string;
  let gatewayId: number;

  beforeAll(async () => {
    t = await testApp("1");
    token = await t.login();
    const product = await t.call("POST", "/products", { productName: "Meters", cloudProtocol: 7 }, token);
    productID = product.body.productID as string;
    const point = (dataPointID: string, extra: Record<string, unknown>) =>
      t.call(
        "POST",
        "/data_points",
        { productID, dataPointName: dataPointID, dataPointID, pointDataType: 25, dataTransType: 3, ...extra },
        token,
      );
    expect((await point("temp", { registerAddr: "300001", dataTransType: 1 })).status).toBe(201);
    expect((await point("setpoint", { registerAddr: "400010", upperLimit: 90, lowerLimit: 10 })).status).toBe(201);
    expect((await point("pump", { registerAddr: "000001", pointDataType: 23, binarySize: 0 })).status).toBe(201);
  });
  afterAll(() => t.close());

  const gatewayBody = (channel: unknown) => ({
    productID,
    gatewayName: "boiler room",
    gatewayProtocol: 7,
    authType: 1,
    channel,
  });

  it("refuses channel settings that cannot work, naming the member", async () => {
    const noHost = await t.call("POST", "/gateways", gatewayBody({ chntype: "tcp" }), token);
    expect(noHost.status).toBe(400);
    expect(noHost.body.errors).toEqual({ "channel.tcphost": "required when chntype is tcp" });
    const bad = await t.call(
      "POST",
      "/gateways",
      gatewayBody({ chntype: "rtu", ttycom: "/dev/ttyS0", ttybaud: 12, ttypari: "mark", byteOrder: "ACBD" }),
      token,
    );
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors as object).sort()).toEqual([
      "channel.byteOrder",
      "channel.ttybaud",
      "channel.ttypari",
    ]);
    expect((await t.call("POST", "/gateways", gatewayBody({ chntype: "can" }), token)).body.errors).toHaveProperty(
      "channel.chntype",
    );
  });

  it("stores channel settings with their defaults and shows them on the gateway", async () => {
    const r = await t.call("POST", "/gateways", gatewayBody({ chntype: "tcp", tcphost: "10.0.0.20" }), token);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    gatewayId = r.body.id as number;
    const detail = await t.call("GET", `/gateways/${gatewayId}`, undefined, token);
    expect(detail.body.channel).toEqual({
      chntype: "tcp",
      tcphost: "10.0.0.20",
      tcpport: 502,
      ttybaud: 9600,
      ttydata: 8,
      ttypari: "none",
      ttystop: 1,
      timeout: 1000,
      retries: 1,
      pollInterval: 1000,
      byteOrder: "ABCD",
      maxGap: 8,
    });
    const cleared = await t.call("PUT", `/gateways/${gatewayId}`, { channel: null }, token);
    expect(cleared.body.channel).toBeNull();
  });

  it("tells the registry after each successful write to devices, gateways, data points or products, not after reads or refusals", async () => {
    const before = t.configChanges.length;
    await t.call("GET", "/devices", undefined, token);
    await t.call("POST", "/devices", { productID, deviceName: "no index", gateway: gatewayId }, token);
    expect(t.configChanges.length).toBe(before);
    const r = await t.call(
      "POST",
      "/devices",
      {
        productID,
        deviceName: "meter 3",
        deviceID: "meter-3",
        upLinkSystem: 2,
        gateway: gatewayId,
        modBusIndex: 3,
        authType: 1,
      },
      token,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    await t.call("PUT", `/gateways/${gatewayId}`, { channel: { chntype: "rtu", ttycom: "/dev/ttyUSB0" } }, token);
    expect(t.configChanges.slice(before)).toHaveLength(2);
    expect(new Set(t.configChanges)).toEqual(new Set([r.body.tenantID as string]));
  });

  it("checks a command to a slave against its points: a JSON object, writable areas, types and limits", async () => {
    const publish = (payload: string) => t.call("POST", "/device_publish", { deviceID: "meter-3", payload }, token);
    const notObject = await publish("open the valve");
    expect(notObject.status).toBe(400);
    expect(notObject.body.errors).toEqual({ payload: "must be a JSON object {dataPointID: value}" });
    const bad = await publish('{"temp": 20, "setpoint": 95, "pump": "on", "nope": 1}');
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual({
      "payload.temp": "is in a read-only Modbus area (registerAddr 300001)",
      "payload.setpoint": "must be at most 90 (upperLimit)",
      "payload.pump": expect.any(String),
      "payload.nope": expect.any(String),
    });
    const ok = await publish('{"setpoint": 42.5, "pump": true}');
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const logs = await t.call("GET", `/device_control_logs?deviceID_like=meter-3`, undefined, token);
    expect(logs.body.items[0]).toMatchObject({ topic: "down/modbus", publishStatus: 1, publishResult: null });
  });
});
