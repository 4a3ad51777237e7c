import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { twoTenants } from "./test-tenants.js";
import {
  createDataPoint,
  dataPointProblems,
  deleteDataPoints,
  getDataPoint,
  listDataPoints,
  updateDataPoint,
  type DataPointInput,
} from "./data-points.js";
import { createDataStream } from "./data-streams.js";
import { createProduct, getProduct } from "./products.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const page = { page: 1, limit: 10 };
const unset = {
  unitName: null,
  unitSymbol: null,
  upperLimit: null,
  lowerLimit: null,
  dataStep: null,
  isLocationType: null,
  locationType: null,
  binarySize: null,
  faultValue: null,
  isDiscard: null,
  registerAddr: null,
  detail: null,
};

describe("dataPointProblems", () => {
  const point = (over: Partial<Parameters<typeof dataPointProblems>[0]>) => ({
    dataPointName: "n",
    dataPointId: "i",
    pointDataType: 1,
    dataTransType: 1,
    ...unset,
    ...over,
  });

  it("accepts every non-Modbus type on an MQTT product and every Modbus type on a Modbus product", () => {
    for (const t of [1, 3, 5, 6, 11, 12, 13, 14, 15, 16, 17, 18, 19])
      expect(dataPointProblems(point({ pointDataType: t }), 1)).toEqual({});
    expect(dataPointProblems(point({ pointDataType: 4, faultValue: "E1" }), 1)).toEqual({});
    for (const t of [21, 22, 24, 25])
      expect(dataPointProblems(point({ pointDataType: t, registerAddr: "40001" }), 7)).toEqual({});
    expect(dataPointProblems(point({ pointDataType: 23, registerAddr: "40001", binarySize: 15 }), 7)).toEqual({});
  });

  it("names each broken rule", () => {
    expect(dataPointProblems(point({ pointDataType: 2 }), 1)).toEqual({ pointDataType: expect.any(String) });
    expect(dataPointProblems(point({ pointDataType: 21 }), 1)).toEqual({
      pointDataType: expect.stringContaining("Modbus"),
    });
    expect(dataPointProblems(point({ pointDataType: 1 }), 7)).toEqual({
      pointDataType: expect.stringContaining("21 to 25"),
      registerAddr: expect.any(String),
    });
    expect(dataPointProblems(point({ pointDataType: 4 }), 1)).toEqual({ faultValue: expect.any(String) });
    expect(
      dataPointProblems(
        point({ pointDataType: 3, unitName: "C", unitSymbol: "°", upperLimit: 1, lowerLimit: 0, dataStep: 1 }),
        1,
      ),
    ).toEqual({
      unitName: expect.any(String),
      unitSymbol: expect.any(String),
      upperLimit: expect.any(String),
      lowerLimit: expect.any(String),
      dataStep: expect.any(String),
    });
    expect(dataPointProblems(point({ pointDataType: 17, upperLimit: 1, lowerLimit: 2 }), 1)).toEqual({
      lowerLimit: expect.any(String),
    });
    expect(dataPointProblems(point({ pointDataType: 23, registerAddr: "40001" }), 7)).toEqual({
      binarySize: expect.stringContaining("bit position"),
    });
    expect(dataPointProblems(point({ pointDataType: 23, registerAddr: "40001", binarySize: 16 }), 7)).toEqual({
      binarySize: expect.any(String),
    });
    expect(dataPointProblems(point({ pointDataType: 13, binarySize: 0 }), 1)).toEqual({
      binarySize: "must be positive",
    });
    // Integers of binary streams take 1 to 8 bytes.
    expect(dataPointProblems(point({ pointDataType: 16, binarySize: 2 }), 1)).toEqual({});
    expect(dataPointProblems(point({ pointDataType: 15, binarySize: 9 }), 1)).toEqual({
      binarySize: "must be a width from 1 to 8 bytes",
    });
    expect(dataPointProblems(point({ pointDataType: 5, binarySize: 4 }), 1)).toEqual({
      binarySize: expect.any(String),
    });
    expect(dataPointProblems(point({ dataTransType: 4, isLocationType: 3, locationType: 4, isDiscard: 2 }), 1)).toEqual(
      {
        dataTransType: expect.any(String),
        isLocationType: expect.any(String),
        locationType: expect.any(String),
        isDiscard: expect.any(String),
      },
    );
  });
});

describe.each(engines)("data points on $name", (engine) => {
  async function setup() {
    const { db, caller, other } = await twoTenants(engine);
    const product = await createProduct(db, caller, { productName: "Meter", cloudProtocol: 1 });
    const modbus = await createProduct(db, caller, { productName: "PLC", cloudProtocol: 7 });
    const input = (over: Partial<DataPointInput> = {}): DataPointInput => ({
      productIntId: product.id,
      dataPointName: "Temperature",
      dataPointId: "temp",
      pointDataType: 1,
      dataTransType: 1,
      ...over,
    });
    return { db, caller, other, product, modbus, input };
  }

  it("creates a point with its product's ids and name, unset optionals as null and enum as JSON", async () => {
    const { db, caller, product, input } = await setup();
    const p = await createDataPoint(
      db,
      caller,
      input({
        unitName: "Celsius",
        unitSymbol: "°C",
        upperLimit: 100.5,
        lowerLimit: -20,
        dataStep: 0.5,
        enum: [1, "two"],
        detail: "",
      }),
      1_000,
    );
    expect(p).toMatchObject({
      dataPointId: "temp",
      dataPointName: "Temperature",
      productIntId: product.id,
      productId: product.productId,
      productName: "Meter",
      createUser: "root",
      upperLimit: 100.5,
      lowerLimit: -20,
      dataStep: 0.5,
      enum: '[1,"two"]',
      detail: null,
      faultValue: null,
      binarySize: null,
      createAt: 1_000,
      updateAt: null,
    });
    expect(await getDataPoint(db, caller, p.id)).toEqual(p);
    const counts = await getProduct(db, caller, product.id);
    expect(counts).toMatchObject({ dataPointCount: 1, dataStreamCount: 0 });
  });

  it("refuses a product that is missing, unknown or another tenant's with FORM_INVALID naming it", async () => {
    const { db, caller, other, product, input } = await setup();
    await expect(createDataPoint(db, caller, input({ productIntId: undefined }))).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { productIntID: "required" },
    });
    await expect(createDataPoint(db, other, input())).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { productIntID: "no such product" },
    });
    await expect(
      createDataPoint(db, caller, input({ productIntId: undefined, productId: "nope" })),
    ).rejects.toMatchObject({ code: "FORM_INVALID", errors: { productID: "no such product" } });
    const byString = await createDataPoint(
      db,
      caller,
      input({ productIntId: undefined, productId: product.productId }),
    );
    expect(byString.productIntId).toBe(product.id);
  });

  it("keeps dataPointID unique within a product (DATA_EXISTED) but not across products", async () => {
    const { db, caller, modbus, input } = await setup();
    await createDataPoint(db, caller, input());
    await expect(createDataPoint(db, caller, input({ dataPointName: "again" }))).rejects.toMatchObject({
      code: "DATA_EXISTED",
      errors: { dataPointID: expect.any(String) },
    });
    const m = await createDataPoint(
      db,
      caller,
      input({ productIntId: modbus.id, pointDataType: 21, registerAddr: "40001" }),
    );
    expect(m.dataPointId).toBe("temp");
  });

  it("applies the Modbus rules: types 21–25 with a register address, the bit position of a boolean", async () => {
    const { db, caller, modbus, input } = await setup();
    await expect(createDataPoint(db, caller, input({ productIntId: modbus.id }))).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { pointDataType: expect.any(String), registerAddr: expect.any(String) },
    });
    await expect(createDataPoint(db, caller, input({ pointDataType: 22 }))).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { pointDataType: expect.any(String) },
    });
    await expect(
      createDataPoint(db, caller, input({ productIntId: modbus.id, pointDataType: 23, registerAddr: "40001" })),
    ).rejects.toMatchObject({ code: "FORM_INVALID", errors: { binarySize: expect.any(String) } });
    const bit = await createDataPoint(
      db,
      caller,
      input({ productIntId: modbus.id, pointDataType: 23, registerAddr: "40001", binarySize: 0 }),
    );
    expect(bit.binarySize).toBe(0);
  });

  it("lists points newest first, of one product by its productID, and pages them", async () => {
    const { db, caller, other, product, modbus, input } = await setup();
    const a = await createDataPoint(db, caller, input({ dataPointId: "a" }));
    const b = await createDataPoint(db, caller, input({ dataPointId: "b" }));
    const m = await createDataPoint(
      db,
      caller,
      input({ productIntId: modbus.id, dataPointId: "m", pointDataType: 25, registerAddr: "40002" }),
    );
    const own = await createProduct(db, other, { productName: "E", cloudProtocol: 1 });
    await createDataPoint(db, other, input({ productIntId: own.id }));
    expect((await listDataPoints(db, caller, page)).items.map((p) => p.id)).toEqual([m.id, b.id, a.id]);
    expect((await listDataPoints(db, caller, page, { productId: product.productId })).items.map((p) => p.id)).toEqual([
      b.id,
      a.id,
    ]);
    expect((await listDataPoints(db, caller, page, { productId: own.productId })).count).toBe(0);
    const second = await listDataPoints(db, caller, { page: 2, limit: 2 });
    expect(second).toMatchObject({ count: 3, page: 2, limit: 2 });
    expect(second.items.map((p) => p.id)).toEqual([a.id]);
  });

  it("edits the sent fields over the stored ones, checks the result again and keeps the product", async () => {
    const { db, caller, product, modbus, input } = await setup();
    const p = await createDataPoint(db, caller, input({ unitName: "C", enum: [1] }), 1_000);
    const e = await updateDataPoint(
      db,
      caller,
      p.id,
      { dataPointName: "Temp", productId: product.productId, unitName: "", enum: null },
      2_000,
    );
    expect(e).toMatchObject({
      dataPointName: "Temp",
      dataPointId: "temp",
      unitName: null,
      enum: null,
      createAt: 1_000,
      updateAt: 2_000,
    });
    await expect(updateDataPoint(db, caller, p.id, { pointDataType: 4 })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { faultValue: expect.any(String) },
    });
    await expect(updateDataPoint(db, caller, p.id, { lowerLimit: 5, upperLimit: 1 })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { lowerLimit: expect.any(String) },
    });
    await expect(updateDataPoint(db, caller, p.id, { productIntId: modbus.id })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { productIntID: "cannot be changed" },
    });
    const q = await createDataPoint(db, caller, input({ dataPointId: "other" }));
    await expect(updateDataPoint(db, caller, q.id, { dataPointId: "temp" })).rejects.toMatchObject({
      code: "DATA_EXISTED",
      errors: { dataPointID: expect.any(String) },
    });
    expect((await updateDataPoint(db, caller, q.id, { dataPointId: "other" })).dataPointId).toBe("other");
  });

  it("answers DATA_NOT_FOUND for another tenant's point and ignores it on delete", async () => {
    const { db, caller, other, input } = await setup();
    const p = await createDataPoint(db, caller, input());
    const notFound = { code: "DATA_NOT_FOUND", errors: { dataPoint: "not found" } };
    await expect(getDataPoint(db, other, p.id)).rejects.toMatchObject(notFound);
    await expect(updateDataPoint(db, other, p.id, { dataPointName: "x" })).rejects.toMatchObject(notFound);
    await deleteDataPoints(db, other, [p.id]);
    expect((await getDataPoint(db, caller, p.id)).dataPointName).toBe("Temperature");
  });

  it("refuses to delete a point a stream, metric, product resource or app template uses, naming that record, and deletes it once free", async () => {
    const { db, caller, product, input } = await setup();
    const p = await createDataPoint(db, caller, input());
    const free = await createDataPoint(db, caller, input({ dataPointId: "free" }));
    await createDataStream(db, caller, {
      productIntId: product.id,
      streamName: "Telemetry",
      streamType: 1,
      streamDataType: 1,
      topic: "up",
      dataPoints: [p.id],
    });
    await expect(deleteDataPoints(db, caller, [free.id, p.id])).rejects.toMatchObject({
      code: "REFERENCED_ERROR",
      errors: { dataStream: "Telemetry" },
    });
    expect((await listDataPoints(db, caller, page)).count).toBe(2);
    await db.deleteFrom("dataStreamPoints").execute();
    await db
      .insertInto("metrics")
      .values({
        tenantId: caller.tenantId,
        userIntId: 1,
        productIntId: product.id,
        metricName: "Average",
        metricType: 2,
        dataPointIntId: p.id,
        dataStreamIntId: null,
        aggregateType: 3,
        aggregateData: null,
        expressions: null,
        expressionsLabel: null,
        chartType: 1,
        isShow: 1,
        productItemIntId: 0,
        remark: null,
        createAt: 0,
        updateAt: null,
      })
      .execute();
    await expect(deleteDataPoints(db, caller, [p.id])).rejects.toMatchObject({
      code: "REFERENCED_ERROR",
      errors: { metric: "Average" },
    });
    await db.deleteFrom("metrics").execute();
    await db
      .insertInto("productResources")
      .values({
        tenantId: caller.tenantId,
        userIntId: 1,
        productIntId: product.id,
        codeValue: "SN",
        dataPointIntId: p.id,
        itemName: null,
        productItemIntId: 0,
        createAt: 0,
        updateAt: null,
      })
      .execute();
    await expect(deleteDataPoints(db, caller, [p.id])).rejects.toMatchObject({
      code: "REFERENCED_ERROR",
      errors: { productResource: "SN" },
    });
    await db.deleteFrom("productResources").execute();
    await db
      .insertInto("appTemplates")
      .values({
        tenantId: caller.tenantId,
        userIntId: 1,
        productIntId: product.id,
        templateName: "Switch",
        templateType: 1,
        productItemIntId: 0,
        dataPointIntId: p.id,
        dataStreamIntId: null,
        dataTransType: null,
        topic: null,
        enum: null,
        places: null,
        instanceId: null,
        itemId: null,
        itemName: null,
        itemOperations: null,
        objectId: null,
        defaultValues: null,
        createAt: 0,
        updateAt: null,
      })
      .execute();
    await expect(deleteDataPoints(db, caller, [p.id])).rejects.toMatchObject({
      code: "REFERENCED_ERROR",
      errors: { appTemplate: "Switch" },
    });
    await db.deleteFrom("appTemplates").execute();
    await deleteDataPoints(db, caller, [p.id, free.id]);
    expect((await listDataPoints(db, caller, page)).count).toBe(0);
    expect((await getProduct(db, caller, product.id)).dataPointCount).toBe(0);
  });
});
