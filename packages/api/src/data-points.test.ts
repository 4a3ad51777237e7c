import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataPointsFixture, formInvalid, type DataPointsFixture } from "./data-points-fixture.js";

describe.each(["1", "2"] as const)("data points and data streams in Form %s", (form) => {
  let { t, token, admin, product, post, point } = {} as DataPointsFixture;

  beforeAll(async () => {
    ({ t, token, admin, product, post, point } = await dataPointsFixture(form));
  });
  afterAll(() => t.close());

  it("creates a data point with 201 from digit strings, answering the stored record without labels or joined names", async () => {
    const p = await product("Thermo");
    const r = await post("/data_points", {
      productIntID: String(p.id),
      dataPointName: "Temperature",
      dataPointID: "temp",
      pointDataType: "1",
      dataTransType: 1,
      unitName: "Celsius",
      unitSymbol: "°C",
      upperLimit: "100.5",
      lowerLimit: "-20",
      dataStep: "0.5",
      enum: [0, 1],
      isLocationType: 0,
      detail: "",
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(Number),
      dataPointID: "temp",
      dataPointName: "Temperature",
      productID: p.productId,
      pointDataType: 1,
      dataTransType: 1,
      unitName: "Celsius",
      unitSymbol: "°C",
      upperLimit: 100.5,
      lowerLimit: -20,
      dataStep: 0.5,
      binarySize: null,
      faultValue: null,
      isDiscard: null,
      isLocationType: 0,
      locationType: null,
      enum: [0, 1],
      registerAddr: null,
      detail: null,
      userIntID: 1,
      tenantID: admin.tenantId,
      createAt: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      updateAt: null,
    });
  });

  it("lists data points of a product with productName and labels in the caller's language, and shows details", async () => {
    const p = await product("Listed");
    const a = await point(p.id, "a", { pointDataType: 4, faultValue: "E1", dataTransType: 1 });
    const b = await point(p.id, "b", { pointDataType: 17 });
    await point((await product("Elsewhere")).id, "c");
    const r = await t.call("GET", `/data_points?productID=${p.productId}&_limit=1&_page=2`, undefined, token);
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ count: 2, limit: 1, page: 2 });
    expect(r.body.items[0]).toMatchObject({
      id: a.id,
      productID: p.productId,
      productName: "Listed",
      pointDataType: 4,
      pointDataTypeLabel: "Fault",
      dataTransTypeLabel: "Report",
      faultValue: "E1",
    });
    const zh = await t.call("GET", `/data_points?productID=${p.productId}`, undefined, token, {
      "accept-language": "zh-CN",
    });
    expect(zh.body.items[0]).toMatchObject({
      id: b.id,
      pointDataTypeLabel: "单精度浮点数",
      dataTransTypeLabel: "上报和下发",
    });
    const d = await t.call("GET", `/data_points/${b.id}`, undefined, token);
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({
      id: b.id,
      productName: "Listed",
      pointDataTypeLabel: "Single-precision float",
      createUser: "admin",
      userIntID: 1,
      tenantID: admin.tenantId,
    });
  });

  it("accepts every pointDataType code on a product of the matching protocol", async () => {
    const mqtt = await product("All types");
    const modbus = await product("PLC", 7);
    for (const type of [1, 3, 5, 6, 11, 12, 13, 14, 15, 16, 17, 18, 19])
      await point(mqtt.id, `t${type}`, { pointDataType: type });
    await point(mqtt.id, "t4", { pointDataType: 4, faultValue: "1", isDiscard: 1 });
    for (const type of [21, 22, 24, 25])
      await point(modbus.id, `m${type}`, { pointDataType: type, registerAddr: "40001" });
    const bit = await point(modbus.id, "m23", { pointDataType: 23, registerAddr: "40002", binarySize: "15" });
    expect(bit.binarySize).toBe(15);
    const r = await t.call("GET", `/data_points?productID=${mqtt.productId}&_limit=100`, undefined, token);
    expect(
      r.body.items.every((p: { pointDataTypeLabel: string | null }) => typeof p.pointDataTypeLabel === "string"),
    ).toBe(true);
  });

  it("refuses points that break a type rule with FORM_INVALID naming the field", async () => {
    const mqtt = await product("Rules");
    const modbus = await product("Rules PLC", 7);
    const body = (over: Record<string, unknown>, productIntID = mqtt.id) => ({
      productIntID,
      dataPointName: "P",
      dataPointID: "p",
      pointDataType: 1,
      dataTransType: 1,
      ...over,
    });
    formInvalid(
      await post("/data_points", { dataPointName: "" }),
      "dataPointName",
      "dataPointID",
      "pointDataType",
      "dataTransType",
    );
    formInvalid(await post("/data_points", body({ pointDataType: 2 })), "pointDataType");
    formInvalid(await post("/data_points", body({ dataTransType: 4 })), "dataTransType");
    formInvalid(await post("/data_points", body({ pointDataType: 4 })), "faultValue");
    formInvalid(
      await post(
        "/data_points",
        body({ pointDataType: 3, unitName: "C", unitSymbol: "c", upperLimit: 1, lowerLimit: 0, dataStep: 1 }),
      ),
      "unitName",
      "unitSymbol",
      "upperLimit",
      "lowerLimit",
      "dataStep",
    );
    formInvalid(await post("/data_points", body({ pointDataType: 5, upperLimit: "9" })), "upperLimit");
    formInvalid(await post("/data_points", body({ lowerLimit: "10", upperLimit: "2" })), "lowerLimit");
    formInvalid(await post("/data_points", body({ pointDataType: 21 })), "pointDataType");
    formInvalid(await post("/data_points", body({}, modbus.id)), "pointDataType", "registerAddr");
    formInvalid(await post("/data_points", body({ pointDataType: 22 }, modbus.id)), "registerAddr");
    for (const registerAddr of ["1", "200001", "400000", "40x01"])
      formInvalid(await post("/data_points", body({ pointDataType: 22, registerAddr }, modbus.id)), "registerAddr");
    formInvalid(
      await post("/data_points", body({ pointDataType: 23, registerAddr: "40001" }, modbus.id)),
      "binarySize",
    );
    formInvalid(
      await post("/data_points", body({ pointDataType: 23, registerAddr: "40001", binarySize: 16 }, modbus.id)),
      "binarySize",
    );
    formInvalid(await post("/data_points", body({ pointDataType: 13, binarySize: 0 })), "binarySize");
    formInvalid(await post("/data_points", body({ pointDataType: 5, binarySize: 8 })), "binarySize");
    formInvalid(
      await post("/data_points", body({ isLocationType: 3, locationType: 4 })),
      "isLocationType",
      "locationType",
    );
    formInvalid(await post("/data_points", body({ enum: "{not an array}" })), "enum");
    formInvalid(await post("/data_points", body({ productIntID: 999999 })), "productIntID");
    // A point or a stream create takes only its own members: a misspelt one is named, not dropped.
    const unknown = await post("/data_points", body({ unitname: "°C" }));
    formInvalid(unknown, "unitname");
    expect(unknown.body.errors).toEqual({ unitname: "unknown field" });
    formInvalid(
      await post("/data_points", {
        productIntID: mqtt.id,
        streamName: "S",
        streamType: 1,
        streamDataType: 1,
        topic: "t",
        typo: 1,
      }),
      "typo",
    );
    expect((await post("/data_points", body({ pointDataType: 13, binarySize: 16, enum: "[1,2]" }))).body).toMatchObject(
      { binarySize: 16, enum: [1, 2] },
    );
  });

  it("keeps dataPointID unique within a product: DATA_EXISTED naming dataPointID", async () => {
    const p = await product("Unique");
    await point(p.id, "same");
    const r = await post("/data_points", {
      productIntID: p.id,
      dataPointName: "again",
      dataPointID: "same",
      pointDataType: 1,
      dataTransType: 1,
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ errorCode: "DATA_EXISTED", errors: { dataPointID: expect.any(String) } });
    await point((await product("Unique 2")).id, "same");
  });

  it("edits a point from its whole record, ignoring read-only fields, and checks the result again", async () => {
    const p = await product("Edited");
    const created = await point(p.id, "e", { unitName: "C" });
    const record = (await t.call("GET", `/data_points/${created.id}`, undefined, token)).body;
    const sent = {
      ...record,
      id: 424242,
      productName: "x",
      pointDataTypeLabel: "x",
      createUser: "eve",
      tenantID: "tenant2",
      createAt: "2000-01-01 00:00:00",
      dataPointName: "Renamed",
      unitName: "",
    };
    const r = await t.call("PUT", `/data_points/${created.id}`, sent, token);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({
      id: created.id,
      dataPointName: "Renamed",
      unitName: null,
      productID: p.productId,
      createAt: record.createAt,
      tenantID: admin.tenantId,
    });
    expect(r.body.updateAt).toMatch(/^\d{4}-/);
    expect(r.body).not.toHaveProperty("pointDataTypeLabel");
    formInvalid(await t.call("PUT", `/data_points/${created.id}`, { pointDataType: 4 }, token), "faultValue");
    formInvalid(
      await t.call("PUT", `/data_points/${created.id}`, { productID: (await product("Other")).productId }, token),
      "productID",
    );
  });
});
