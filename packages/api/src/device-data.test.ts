import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevice, createProduct, type Caller, type Device, type Product } from "@iot/registry";
import { insertDataPointRow } from "@iot/registry/testing";
import { testApp } from "./test-app.js";

type Rec = Record<string, unknown> & { id: number };

const DATE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

describe.each(["1", "2"] as const)("device consoles, original data and metric data in Form %s", (form) => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let token: string;
  let eveToken: string;
  let viewerToken: string;
  let admin: Caller;
  let meter: Product;
  let device: Device;
  let bare: Device;
  let temp: number;
  let sw: number;
  let silent: number;

  const addUser = async (tenantId: string, username: string, role: string) =>
    (await t.addUser(tenantId, username, role)).token;
  /** Inserts a data point row directly (the data point API is not under test here). */
  const point = async (p: Product, dataPointId: string, pointDataType = 1, dataTransType = 3) =>
    (
      await insertDataPointRow(t.store.db, { tenantId: admin.tenantId, userIntId: 1 }, p.id, dataPointId, {
        pointDataType,
        dataTransType,
        createAt: Date.now(),
      })
    ).id;
  const post = async (path: string, body: Record<string, unknown>) => {
    const r = await t.call("POST", path, body, token);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as Rec;
  };

  beforeAll(async () => {
    t = await testApp(form);
    token = await t.login();
    const root = await t.store.db.selectFrom("users").selectAll().where("id", "=", 1).executeTakeFirstOrThrow();
    admin = { userIntId: root.id, username: root.username, tenantId: root.tenantId, role: "admin", serviceAdmin: true };
    await t.addTenant("tenant2");
    eveToken = await addUser("tenant2", "eve", "admin");
    viewerToken = await addUser(admin.tenantId, "viewer", "viewer");
    meter = await createProduct(t.store.db, admin, { productName: "Meter", cloudProtocol: 1 });
    const empty = await createProduct(t.store.db, admin, { productName: "Empty", cloudProtocol: 1 });
    device = await createDevice(t.store.db, admin, {
      productId: meter.productId,
      deviceName: "d1",
      upLinkSystem: 1,
      authType: 1,
    });
    bare = await createDevice(t.store.db, admin, {
      productId: empty.productId,
      deviceName: "bare",
      upLinkSystem: 1,
      authType: 1,
    });
    temp = await point(meter, "temp", 17, 1);
    sw = await point(meter, "sw", 5, 3);
    silent = await point(meter, "silent", 1, 2);
    await t.store.db
      .insertInto("devicePointValues")
      .values([
        { deviceIntId: device.id, dataPointIntId: temp, value: "25", updateAt: Date.now() - 60_000 },
        { deviceIntId: device.id, dataPointIntId: sw, value: "1", updateAt: Date.now() },
      ])
      .execute();
    // The series the data pipeline stored: two values of temp, one older than a day.
    const sample = (eventId: number, dataPointIntId: number, numValue: number, valueTime: number) => ({
      tenantId: device.tenantId,
      deviceIntId: device.id,
      dataPointIntId,
      eventId,
      valueTime,
      receivedAt: valueTime,
      numValue,
      textValue: null,
    });
    await t.store.db
      .insertInto("pointValues")
      .values([
        sample(1, temp, 24, Date.UTC(2026, 0, 1, 12)),
        sample(2, temp, 25, Date.now() - 60_000),
        sample(3, sw, 1, Date.now()),
      ])
      .execute();
  });
  afterAll(() => t.close());

  it("shows the device product's app templates with the device's current value, without the LwM2M item fields", async () => {
    const a = await post("/app_templates", {
      productID: meter.productId,
      templateName: "Switch",
      templateType: 1,
      dataPointIntID: sw,
      itemID: "1",
      objectID: "2",
      itemName: "i",
      itemOperations: "RW",
    });
    const b = await post("/app_templates", { productID: meter.productId, templateName: "No point", templateType: 1 });
    const r = await t.call("GET", `/device_consoles/${device.id}`, undefined, token);
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ count: 2, limit: 10, page: 1 });
    expect(r.body.items.map((x: Rec) => [x.id, x.value])).toEqual([
      [b.id, null],
      [a.id, "1"],
    ]);
    expect(Object.keys(r.body.items[1]).sort()).toEqual([
      "createAt",
      "dataPointID",
      "dataPointIntID",
      "dataPointName",
      "dataStreamIntID",
      "dataStreamName",
      "dataTransType",
      "defaultValues",
      "enum",
      "id",
      "instanceID",
      "places",
      "productID",
      "productItemIntID",
      "templateName",
      "templateType",
      "templateTypeLabel",
      "topic",
      "updateAt",
      "value",
    ]);
    expect(r.body.items[1]).toMatchObject({ templateName: "Switch", dataPointID: "sw", templateTypeLabel: "Switch" });
    expect((await t.call("GET", `/device_consoles/${bare.id}`, undefined, viewerToken)).body).toEqual({
      items: [],
      meta: { count: 0, limit: 10, page: 1 },
    });
  });

  it("answers 404 for another tenant's or unknown device on every device data path", async () => {
    for (const path of [
      `/device_consoles/${device.id}`,
      `/original_data?deviceID=${device.deviceId}`,
      `/metrics_data?deviceID=${device.deviceId}`,
    ]) {
      expect(await t.call("GET", path, undefined, eveToken), path).toMatchObject({
        status: 404,
        body: { errorCode: "DATA_NOT_FOUND" },
      });
    }
    for (const path of [
      "/device_consoles/999999",
      "/device_consoles/abc",
      "/original_data?deviceID=nope",
      "/metrics_data?deviceID=nope",
    ]) {
      expect((await t.call("GET", path, undefined, token)).status, path).toBe(404);
    }
  });

  it("answers original data of each numeric reported data point: its series in the window, oldest first", async () => {
    const r = await t.call(
      "GET",
      `/original_data?deviceID=${device.deviceId}&metricType=2&time_unit=day`,
      undefined,
      token,
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      {
        dataPointIntID: temp,
        dataPointName: "Point temp",
        originalData: { time: [expect.stringMatching(DATE)], value: [25] },
      },
    ]);
    expect(r.body.some((o: Rec) => o.dataPointIntID === silent || o.dataPointIntID === sw)).toBe(false);
    expect((await t.call("GET", `/original_data?deviceID=${device.deviceId}`, undefined, viewerToken)).body).toEqual(
      r.body,
    );
    expect(
      (await t.call("GET", `/original_data?deviceID=${bare.deviceId}&time_unit=week`, undefined, token)).body,
    ).toEqual([]);
    const window = await t.call(
      "GET",
      `/original_data?deviceID=${device.deviceId}&start_time=2026-01-01 00:00:00&end_time=2026-01-02 00:00:00`,
      undefined,
      token,
    );
    expect(window.body[0].originalData).toEqual({ time: ["2026-01-01 12:00:00"], value: [24] });
    expect(
      await t.call(
        "GET",
        `/original_data?deviceID=${device.deviceId}&start_time=2026-02-30 00:00:00`,
        undefined,
        token,
      ),
    ).toMatchObject({
      status: 400,
      body: { errorCode: "PARAMETER_INVALID", errors: { start_time: "not a real date" } },
    });
  });

  it("answers the product's metrics with their series for the device, filtered by metricType", async () => {
    const f = await post("/metrics", { metricName: "Fahrenheit", dataPointIntID: temp, expressions: "x * 1.8 + 32" });
    const peak = await post("/metrics", { metricName: "Peak", dataPointIntID: temp, aggregateType: 1 });
    const stored = (eventId: number, value: number, valueTime: number) => ({
      tenantId: device.tenantId,
      deviceIntId: device.id,
      metricIntId: f.id,
      eventId,
      valueTime,
      value,
    });
    await t.store.db
      .insertInto("metricValues")
      .values([stored(1, 75.2, Date.UTC(2026, 0, 1, 12)), stored(2, 77, Date.now() - 60_000)])
      .execute();
    const all = await t.call("GET", `/metrics_data?deviceID=${device.deviceId}`, undefined, token);
    expect(all.status).toBe(200);
    expect(all.body.map((m: Rec) => [m.id, m.metricData])).toEqual([
      [f.id, { time: [expect.stringMatching(DATE)], value: [77] }],
      [peak.id, { time: expect.arrayContaining([expect.stringMatching(/ 00:00:00$/)]), value: expect.any(Array) }],
    ]);
    expect(all.body[1].metricData.value.at(-1)).toBe(25);
    expect(all.body[0]).toMatchObject({
      metricName: "Fahrenheit",
      metricType: 1,
      metricTypeLabel: "Formula metric",
      dataPointName: "Point temp",
      productID: meter.productId,
    });
    const window = "start_time=2026-01-01 00:00:00&end_time=2026-01-02 00:00:00";
    const hours = await t.call(
      "GET",
      `/metrics_data?deviceID=${device.deviceId}&time_unit=hour&${window}`,
      undefined,
      viewerToken,
    );
    expect(hours.body.map((m: Rec) => m.metricData)).toEqual([
      { time: ["2026-01-01 12:00:00"], value: [75.2] },
      { time: ["2026-01-01 12:00:00"], value: [24] },
    ]);
    const months = await t.call(
      "GET",
      `/metrics_data?deviceID=${device.deviceId}&metricType=2&time_unit=month&${window}`,
      undefined,
      token,
    );
    expect(months.body.map((m: Rec) => [m.id, m.metricData])).toEqual([
      [peak.id, { time: ["2026-01-01 00:00:00"], value: [24] }],
    ]);
    const formulas = await t.call("GET", `/metrics_data?deviceID=${device.deviceId}&metricType=1`, undefined, token);
    expect(formulas.body.map((m: Rec) => m.id)).toEqual([f.id]);
    expect(
      (await t.call("GET", `/metrics_data?deviceID=${bare.deviceId}&metricType=1&time_unit=minute`, undefined, token))
        .body,
    ).toEqual([]);
  });

  it("rejects bad query parameters with PARAMETER_INVALID naming them", async () => {
    expect(await t.call("GET", "/original_data", undefined, token)).toMatchObject({
      status: 400,
      body: { errorCode: "PARAMETER_INVALID", errors: { deviceID: "required" } },
    });
    expect(await t.call("GET", "/metrics_data?deviceID=", undefined, token)).toMatchObject({
      status: 400,
      body: { errorCode: "PARAMETER_INVALID", errors: { deviceID: "required" } },
    });
    expect(
      await t.call("GET", `/original_data?deviceID=${device.deviceId}&time_unit=year&metricType=3`, undefined, token),
    ).toMatchObject({
      status: 400,
      body: {
        errorCode: "PARAMETER_INVALID",
        errors: { time_unit: expect.stringContaining("day"), metricType: "must be 1 or 2" },
      },
    });
    expect(
      await t.call("GET", `/metrics_data?deviceID=${device.deviceId}&metricType=x`, undefined, token),
    ).toMatchObject({ status: 400, body: { errors: { metricType: "must be 1 or 2" } } });
    expect(
      await t.call(
        "GET",
        `/metrics_data?deviceID=${device.deviceId}&time_unit=year&end_time=2026-01-01`,
        undefined,
        token,
      ),
    ).toMatchObject({
      status: 400,
      body: {
        errors: {
          time_unit: "must be one of minute, hour, day, week, month",
          end_time: "must be a date YYYY-MM-DD HH:MM:SS",
        },
      },
    });
    expect(
      (await t.call("GET", `/original_data?deviceID=${device.deviceId}&time_unit=minute`, undefined, token)).status,
    ).toBe(400);
    expect(await t.call("GET", `/device_consoles/${device.id}?_limit=x`, undefined, token)).toMatchObject({
      status: 400,
      body: { errorCode: "PARAMETER_INVALID", errors: { _limit: expect.any(String) } },
    });
  });
});
