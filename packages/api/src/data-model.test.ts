import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, createProduct, type Caller } from "@iot/registry";
import { testApp } from "./test-app.js";

type Rec = Record<string, unknown> & { id: number };

describe.each(["1", "2"] as const)("data points and data streams in Form %s", (form) => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let token: string;
  let eveToken: string;
  let viewerToken: string;
  let admin: Caller;
  let eve: Caller;

  const addUser = (tenantId: string, username: string, role: string) => t.addUser(tenantId, username, role);
  const product = (productName: string, cloudProtocol = 1, who?: Caller) =>
    createProduct(t.store.db, who ?? admin, { productName, cloudProtocol });
  const post = async (path: string, body: unknown, as = token) => t.call("POST", path, body, as);
  const point = async (productIntID: number, dataPointID: string, extra: Record<string, unknown> = {}, as = token) => {
    const r = await post(
      "/data_points",
      {
        productIntID: String(productIntID),
        dataPointName: `Point ${dataPointID}`,
        dataPointID,
        pointDataType: 1,
        dataTransType: 3,
        ...extra,
      },
      as,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as Rec;
  };
  const formInvalid = (
    r: { status: number; body: { errorCode: string; errors: Record<string, string> } },
    ...fields: string[]
  ) => {
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.errorCode).toBe("FORM_INVALID");
    expect(Object.keys(r.body.errors).sort()).toEqual([...fields].sort());
  };

  beforeAll(async () => {
    t = await testApp(form);
    token = await t.login();
    const root = await t.store.db.selectFrom("users").selectAll().where("id", "=", 1).executeTakeFirstOrThrow();
    admin = { userIntId: root.id, username: root.username, tenantId: root.tenantId, role: "admin", serviceAdmin: true };
    await t.addTenant("tenant2");
    ({ token: eveToken, caller: eve } = await addUser("tenant2", "eve", "admin"));
    ({ token: viewerToken } = await addUser(admin.tenantId, "viewer", "viewer"));
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

  it("writes data streams on /data_streams and on the data point paths when the body has streamName", async () => {
    const p = await product("Streamed");
    const [a, b] = [await point(p.id, "a"), await point(p.id, "b")];
    const viaPoints = await post("/data_points", {
      productIntID: String(p.id),
      streamName: "Up",
      streamType: 1,
      streamDataType: 1,
      topic: "up",
      dataPoints: [b.id, a.id],
    });
    expect(viaPoints.status, JSON.stringify(viaPoints.body)).toBe(201);
    expect(viaPoints.body).toEqual({
      id: expect.any(Number),
      productID: p.productId,
      streamName: "Up",
      streamType: 1,
      streamDataType: 1,
      topic: "up",
      dataPoints: [b.id, a.id],
      detail: null,
      userIntID: 1,
      createAt: expect.any(String),
      updateAt: null,
    });
    const direct = await post("/data_streams", {
      productID: p.productId,
      streamName: "Down",
      streamType: "2",
      streamDataType: "2",
      topic: "down/cmd",
      dataPoints: [a.id],
    });
    expect(direct.status).toBe(201);
    const edited = await t.call(
      "PUT",
      `/data_points/${viaPoints.body.id}`,
      { streamName: "Up renamed", dataPoints: [a.id] },
      token,
    );
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      id: viaPoints.body.id,
      streamName: "Up renamed",
      dataPoints: [a.id],
      topic: "up",
    });
    const detail = (await t.call("GET", `/data_streams/${direct.body.id}`, undefined, token)).body;
    const again = await t.call(
      "PUT",
      `/data_streams/${direct.body.id}`,
      {
        ...detail,
        streamTypeLabel: "x",
        dataPointNames: ["x"],
        productName: "x",
        detail: "cmd",
        dataPoints: [b.id, a.id],
      },
      token,
    );
    expect(again.body).toMatchObject({ detail: "cmd", dataPoints: [b.id, a.id] });
    formInvalid(
      await post("/data_points", { productIntID: p.id, streamName: "", streamType: 9 }),
      "streamName",
      "streamType",
      "streamDataType",
      "topic",
    );
    expect((await t.call("GET", `/data_points/${a.id}`, undefined, token)).body.dataPointName).toBe("Point a");
  });

  it("lists streams with exactly the spec's fields and shows the detail with data point names in order", async () => {
    const p = await product("Stream list");
    const [a, b] = [await point(p.id, "a"), await point(p.id, "b")];
    const s = (
      await post("/data_streams", {
        productIntID: p.id,
        streamName: "Telemetry",
        streamType: 1,
        streamDataType: 2,
        topic: "t",
        dataPoints: [b.id, a.id],
        detail: "d",
      })
    ).body;
    const r = await t.call("GET", `/data_streams?productID=${p.productId}`, undefined, token, {
      "accept-language": "zh",
    });
    expect(r.body).toEqual({
      items: [
        {
          id: s.id,
          productName: "Stream list",
          streamDataType: 2,
          streamDataTypeLabel: "二进制",
          streamName: "Telemetry",
          streamType: 1,
          streamTypeLabel: "设备上报",
          topic: "t",
        },
      ],
      meta: { count: 1, limit: 10, page: 1 },
    });
    const d = await t.call("GET", `/data_streams/${s.id}`, undefined, token);
    expect(d.body).toEqual({
      id: s.id,
      productID: p.productId,
      productName: "Stream list",
      streamName: "Telemetry",
      streamType: 1,
      streamTypeLabel: "Device report",
      streamDataType: 2,
      streamDataTypeLabel: "Binary",
      topic: "t",
      dataPoints: [b.id, a.id],
      dataPointNames: ["Point b", "Point a"],
      detail: "d",
      userIntID: 1,
      createUser: "admin",
      createAt: expect.any(String),
      updateAt: null,
    });
  });

  it("applies the stream rules: gateway-only types, unique valid topics, data points of the same product", async () => {
    const p = await product("Stream rules");
    const mine = await point(p.id, "mine");
    const elsewhere = await point((await product("Other stream product")).id, "x");
    const foreign = await point((await product("Eve's", 1, eve)).id, "f", {}, eveToken);
    const stream = (over: Record<string, unknown>) => ({
      productIntID: p.id,
      streamName: "S",
      streamType: 1,
      streamDataType: 1,
      topic: "s",
      ...over,
    });
    formInvalid(await post("/data_streams", stream({ streamType: 3 })), "streamType");
    formInvalid(await post("/data_points", stream({ streamType: 4 })), "streamType");
    await createGateway(t.store.db, admin, { productId: p.productId, deviceName: "gw", authType: 1 });
    expect((await post("/data_streams", stream({ streamType: 3, topic: "gw/up" }))).status).toBe(201);
    expect((await post("/data_streams", stream({ dataPoints: [mine.id] }))).status).toBe(201);
    const dup = await post("/data_points", stream({ streamName: "Other" }));
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ errorCode: "DATA_EXISTED", errors: { topic: expect.any(String) } });
    for (const topic of ["a/b+", "a/#/b", "/abs", "a//b"])
      formInvalid(await post("/data_streams", stream({ topic })), "topic");
    // A report stream's topic may be an MQTT filter; a command stream's may not.
    expect((await post("/data_streams", stream({ topic: "sensors/+/temp" }))).status).toBe(201);
    formInvalid(await post("/data_streams", stream({ streamType: 2, topic: "cmd/#" })), "topic");
    for (const id of [elsewhere.id, foreign.id, 999999]) {
      const r = await post("/data_streams", stream({ topic: `t${id}`, dataPoints: [mine.id, id] }));
      formInvalid(r, "dataPoints");
      expect(r.body.errors.dataPoints).toContain(String(id));
    }
  });

  it("refuses to delete a point a stream or a metric uses (REFERENCED_ERROR naming it), and deletes it once free", async () => {
    const p = await product("Deleting");
    const used = await point(p.id, "used");
    const s = (
      await post("/data_streams", {
        productIntID: p.id,
        streamName: "Carrier",
        streamType: 1,
        streamDataType: 1,
        topic: "c",
        dataPoints: [used.id],
      })
    ).body;
    const r = await t.call("DELETE", `/data_points?ids=${used.id}`, undefined, token);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ errorCode: "REFERENCED_ERROR", errors: { dataStream: "Carrier" } });
    expect((await t.call("DELETE", `/data_streams?ids=${s.id}`, undefined, token)).status).toBe(204);
    expect((await t.call("GET", `/data_streams/${s.id}`, undefined, token)).status).toBe(404);
    await t.store.db
      .insertInto("metrics")
      .values({
        tenantId: admin.tenantId,
        userIntId: 1,
        productIntId: p.id,
        metricName: "Peak",
        metricType: 2,
        dataPointIntId: used.id,
        dataStreamIntId: null,
        aggregateType: 1,
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
    const m = await t.call("DELETE", `/data_points?ids=${used.id}`, undefined, token);
    expect(m.body).toMatchObject({ errorCode: "REFERENCED_ERROR", errors: { metric: "Peak" } });
    await t.store.db.deleteFrom("metrics").where("metricName", "=", "Peak").execute();
    expect((await t.call("DELETE", `/data_points?ids=${used.id}`, undefined, token)).status).toBe(204);
    expect((await t.call("GET", `/data_points/${used.id}`, undefined, token)).status).toBe(404);
  });

  it(`${form === "1" ? "counts" : "does not count"} data points and streams on product records`, async () => {
    const p = await product("Counted");
    await point(p.id, "a");
    await point(p.id, "b");
    await post("/data_streams", { productIntID: p.id, streamName: "S", streamType: 1, streamDataType: 1, topic: "s" });
    const listed = (await t.call("GET", "/products?productName_like=Counted", undefined, token)).body.items[0];
    const detail = (await t.call("GET", `/products/${p.id}`, undefined, token)).body;
    for (const rec of [listed, detail]) {
      if (form === "1") expect(rec).toMatchObject({ deviceCount: 0, dataPointCount: 2, dataStreamCount: 1 });
      else expect(rec).not.toHaveProperty("dataPointCount");
    }
  });

  it("answers 404 for another tenant's points and streams on every path that names one, and leaves them alone on delete", async () => {
    const p = await product("Private");
    const pt = await point(p.id, "private");
    const s = (
      await post("/data_streams", {
        productIntID: p.id,
        streamName: "Private",
        streamType: 1,
        streamDataType: 1,
        topic: "p",
      })
    ).body;
    const calls: Array<[string, string, unknown?]> = [
      ["GET", `/data_points/${pt.id}`],
      ["PUT", `/data_points/${pt.id}`, { dataPointName: "stolen" }],
      ["GET", `/data_streams/${s.id}`],
      ["PUT", `/data_streams/${s.id}`, { streamName: "stolen" }],
      ["PUT", `/data_points/${s.id}`, { streamName: "stolen" }],
    ];
    for (const [method, path, body] of calls)
      expect((await t.call(method, path, body, eveToken)).status, `${method} ${path}`).toBe(404);
    expect((await t.call("DELETE", `/data_points?ids=${pt.id}`, undefined, eveToken)).status).toBe(204);
    expect((await t.call("DELETE", `/data_streams?ids=${s.id}`, undefined, eveToken)).status).toBe(204);
    expect((await t.call("GET", `/data_points/${pt.id}`, undefined, token)).body.dataPointName).toBe("Point private");
    expect((await t.call("GET", `/data_streams/${s.id}`, undefined, token)).body.streamName).toBe("Private");
    expect((await t.call("GET", `/data_points?productID=${p.productId}`, undefined, eveToken)).body.meta.count).toBe(0);
    formInvalid(
      await post(
        "/data_points",
        { productIntID: p.id, dataPointName: "x", dataPointID: "x", pointDataType: 1, dataTransType: 1 },
        eveToken,
      ),
      "productIntID",
    );
  });

  it("lets a viewer read points and streams but not write them (403)", async () => {
    const p = await product("Viewed");
    const pt = await point(p.id, "v");
    expect((await t.call("GET", "/data_points", undefined, viewerToken)).status).toBe(200);
    expect((await t.call("GET", `/data_streams?productID=${p.productId}`, undefined, viewerToken)).status).toBe(200);
    const writes: Array<[string, string, unknown?]> = [
      [
        "POST",
        "/data_points",
        { productIntID: p.id, dataPointName: "x", dataPointID: "x", pointDataType: 1, dataTransType: 1 },
      ],
      ["PUT", `/data_points/${pt.id}`, { dataPointName: "x" }],
      ["DELETE", `/data_points?ids=${pt.id}`],
      ["POST", "/data_streams", { productIntID: p.id, streamName: "S", streamType: 1, streamDataType: 1, topic: "s" }],
      ["DELETE", "/data_streams?ids=1"],
    ];
    for (const [method, path, body] of writes) {
      const r = await t.call(method, path, body, viewerToken);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.errorCode).toBe("PERMISSION_DENIED");
    }
  });
});
