import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway } from "@iot/registry";
import { dataPointsFixture, formInvalid, type DataPointsFixture } from "./data-points-fixture.js";

describe.each(["1", "2"] as const)("data points and data streams in Form %s", (form) => {
  let { t, token, eveToken, admin, eve, product, post, point } = {} as DataPointsFixture;

  beforeAll(async () => {
    ({ t, token, eveToken, admin, eve, product, post, point } = await dataPointsFixture(form));
  });
  afterAll(() => t.close());

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
});
