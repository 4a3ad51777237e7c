import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { twoTenants } from "./test-tenants.js";
import { createDataPoint } from "./data-points.js";
import {
  createDataStream,
  deleteDataStreams,
  getDataStream,
  isGatewayProduct,
  listDataStreams,
  streamTopicProblem,
  updateDataStream,
  type DataStreamInput,
} from "./data-streams.js";
import { createGateway } from "./gateways.js";
import { createProduct, getProduct } from "./products.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const page = { page: 1, limit: 10 };

describe("streamTopicProblem", () => {
  it("accepts relative topics and names what is wrong with the others", () => {
    for (const ok of ["up", "sensors/temp", "a/b/c-1_x"]) expect(streamTopicProblem(ok)).toBeUndefined();
    expect(streamTopicProblem("")).toBe("required");
    // Report streams (1, 3) match uplinks by MQTT filter; command streams (2, 4) name one topic.
    for (const ok of ["a/+/b", "a/#", "#", "+"]) expect(streamTopicProblem(ok, 1)).toBeUndefined();
    expect(streamTopicProblem("a/#", 3)).toBeUndefined();
    expect(streamTopicProblem("a/+/b", 2)).toContain("wildcards");
    expect(streamTopicProblem("a/#", 4)).toContain("wildcards");
    expect(streamTopicProblem("a/b+")).toContain("alone");
    expect(streamTopicProblem("a/#/b")).toContain("last level");
    expect(streamTopicProblem("/up")).toContain("relative");
    expect(streamTopicProblem("$SYS/x")).toContain("$");
    expect(streamTopicProblem("a//b")).toContain("empty");
    expect(streamTopicProblem("a/")).toContain("empty");
    expect(streamTopicProblem("x".repeat(201))).toContain("at most");
  });
});

describe.each(engines)("data streams on $name", (engine) => {
  async function setup() {
    const { db, caller, other } = await twoTenants(engine);
    const product = await createProduct(db, caller, { productName: "Meter", cloudProtocol: 1 });
    const point = (dataPointId: string, productIntId = product.id, who = caller) =>
      createDataPoint(db, who, {
        productIntId,
        dataPointId,
        dataPointName: `Point ${dataPointId}`,
        pointDataType: 1,
        dataTransType: 3,
      });
    const input = (over: Partial<DataStreamInput> = {}): DataStreamInput => ({
      productIntId: product.id,
      streamName: "Telemetry",
      streamType: 1,
      streamDataType: 1,
      topic: "up",
      ...over,
    });
    return { db, caller, other, product, point, input };
  }

  it("creates a stream with its points in the given order, names resolved, repeats dropped", async () => {
    const { db, caller, product, point, input } = await setup();
    const [a, b] = [await point("a"), await point("b")];
    const s = await createDataStream(db, caller, input({ dataPoints: [b.id, a.id, b.id], detail: "main" }), 1_000);
    expect(s).toMatchObject({
      streamName: "Telemetry",
      streamType: 1,
      streamDataType: 1,
      topic: "up",
      detail: "main",
      productIntId: product.id,
      productId: product.productId,
      productName: "Meter",
      createUser: "root",
      dataPoints: [b.id, a.id],
      dataPointNames: ["Point b", "Point a"],
      createAt: 1_000,
      updateAt: null,
    });
    expect(await getDataStream(db, caller, s.id)).toEqual(s);
    expect((await getProduct(db, caller, product.id)).dataStreamCount).toBe(1);
    const bare = await createDataStream(db, caller, input({ topic: "down", streamType: 2 }));
    expect(bare).toMatchObject({ dataPoints: [], dataPointNames: [], detail: null });
  });

  it("allows stream types 3 and 4 only on products with at least one gateway", async () => {
    const { db, caller, product, input } = await setup();
    expect(await isGatewayProduct(db, caller.tenantId, product.id)).toBe(false);
    await expect(createDataStream(db, caller, input({ streamType: 3 }))).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { streamType: expect.stringContaining("gateway") },
    });
    const plain = await createDataStream(db, caller, input({ streamType: 1 }));
    await expect(updateDataStream(db, caller, plain.id, { streamType: 4 })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { streamType: expect.any(String) },
    });
    await createGateway(db, caller, { productId: product.productId, deviceName: "gw", authType: 1 });
    expect(await isGatewayProduct(db, caller.tenantId, product.id)).toBe(true);
    const gw = await createDataStream(db, caller, input({ streamType: 3, topic: "gw/up" }));
    expect(gw.streamType).toBe(3);
    expect((await updateDataStream(db, caller, plain.id, { streamType: 4 })).streamType).toBe(4);
  });

  it("keeps topics unique within a product (DATA_EXISTED naming topic) and refuses invalid ones", async () => {
    const { db, caller, input } = await setup();
    const s = await createDataStream(db, caller, input());
    await expect(createDataStream(db, caller, input({ streamName: "again" }))).rejects.toMatchObject({
      code: "DATA_EXISTED",
      errors: { topic: expect.any(String) },
    });
    const p2 = await createProduct(db, caller, { productName: "Other", cloudProtocol: 1 });
    expect((await createDataStream(db, caller, input({ productIntId: p2.id }))).topic).toBe("up");
    expect((await createDataStream(db, caller, input({ topic: "a/#" }))).topic).toBe("a/#");
    await expect(createDataStream(db, caller, input({ topic: "b/#", streamType: 2 }))).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { topic: expect.any(String) },
    });
    const t = await createDataStream(db, caller, input({ topic: "second" }));
    await expect(updateDataStream(db, caller, t.id, { topic: "up" })).rejects.toMatchObject({
      code: "DATA_EXISTED",
      errors: { topic: expect.any(String) },
    });
    expect((await updateDataStream(db, caller, s.id, { topic: "up", streamName: "Renamed" })).streamName).toBe(
      "Renamed",
    );
  });

  it("refuses data points of another product, another tenant or unknown ids with FORM_INVALID naming dataPoints", async () => {
    const { db, caller, other, point, input } = await setup();
    const ok = await point("ok");
    const p2 = await createProduct(db, caller, { productName: "Other", cloudProtocol: 1 });
    const elsewhere = await point("x", p2.id);
    const eveProduct = await createProduct(db, other, { productName: "E", cloudProtocol: 1 });
    const foreign = await point("f", eveProduct.id, other);
    for (const bad of [elsewhere.id, foreign.id, 9_999]) {
      await expect(createDataStream(db, caller, input({ dataPoints: [ok.id, bad] }))).rejects.toMatchObject({
        code: "FORM_INVALID",
        errors: { dataPoints: expect.stringContaining(String(bad)) },
      });
    }
    expect((await listDataStreams(db, caller, page)).count).toBe(0);
  });

  it("edits fields, replaces the point list when sent, keeps the product and sets updateAt", async () => {
    const { db, caller, product, point, input } = await setup();
    const [a, b] = [await point("a"), await point("b")];
    const s = await createDataStream(db, caller, input({ dataPoints: [a.id], detail: "d" }), 1_000);
    const kept = await updateDataStream(
      db,
      caller,
      s.id,
      { streamName: "Renamed", productId: product.productId },
      2_000,
    );
    expect(kept).toMatchObject({ streamName: "Renamed", dataPoints: [a.id], detail: "d", updateAt: 2_000 });
    const replaced = await updateDataStream(db, caller, s.id, {
      dataPoints: [b.id, a.id],
      detail: null,
      streamDataType: 2,
    });
    expect(replaced).toMatchObject({
      dataPoints: [b.id, a.id],
      dataPointNames: ["Point b", "Point a"],
      detail: null,
      streamDataType: 2,
    });
    const p2 = await createProduct(db, caller, { productName: "Other", cloudProtocol: 1 });
    await expect(updateDataStream(db, caller, s.id, { productIntId: p2.id })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { productIntID: "cannot be changed" },
    });
  });

  it("lists streams newest first, of one product by productID, with paging", async () => {
    const { db, caller, other, product, input } = await setup();
    const a = await createDataStream(db, caller, input({ topic: "a" }));
    const b = await createDataStream(db, caller, input({ topic: "b" }));
    const p2 = await createProduct(db, caller, { productName: "Other", cloudProtocol: 1 });
    const c = await createDataStream(db, caller, input({ topic: "c", productIntId: p2.id }));
    const eveProduct = await createProduct(db, other, { productName: "E", cloudProtocol: 1 });
    await createDataStream(db, other, input({ productIntId: eveProduct.id }));
    expect((await listDataStreams(db, caller, page)).items.map((s) => s.id)).toEqual([c.id, b.id, a.id]);
    expect((await listDataStreams(db, caller, page, { productId: product.productId })).items.map((s) => s.id)).toEqual([
      b.id,
      a.id,
    ]);
    const second = await listDataStreams(db, caller, { page: 2, limit: 2 });
    expect(second).toMatchObject({ count: 3, page: 2, limit: 2 });
  });

  it("answers DATA_NOT_FOUND for another tenant's stream, refuses its product, and ignores its ids on delete", async () => {
    const { db, caller, other, product, input } = await setup();
    const s = await createDataStream(db, caller, input());
    const notFound = { code: "DATA_NOT_FOUND", errors: { dataStream: "not found" } };
    await expect(getDataStream(db, other, s.id)).rejects.toMatchObject(notFound);
    await expect(updateDataStream(db, other, s.id, { streamName: "x" })).rejects.toMatchObject(notFound);
    await expect(createDataStream(db, other, input({ productIntId: product.id }))).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { productIntID: expect.any(String) },
    });
    await deleteDataStreams(db, other, [s.id]);
    expect((await getDataStream(db, caller, s.id)).id).toBe(s.id);
  });

  it("deletes streams with their point lists, but not one a metric uses (REFERENCED_ERROR naming metric)", async () => {
    const { db, caller, product, point, input } = await setup();
    const a = await point("a");
    const s = await createDataStream(db, caller, input({ dataPoints: [a.id] }));
    await db
      .insertInto("metrics")
      .values({
        tenantId: caller.tenantId,
        userIntId: 1,
        productIntId: product.id,
        metricName: "Sum",
        metricType: 2,
        dataPointIntId: a.id,
        dataStreamIntId: s.id,
        aggregateType: 4,
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
    await expect(deleteDataStreams(db, caller, [s.id])).rejects.toMatchObject({
      code: "REFERENCED_ERROR",
      errors: { metric: "Sum" },
    });
    await db.deleteFrom("metrics").execute();
    await deleteDataStreams(db, caller, [s.id]);
    expect((await listDataStreams(db, caller, page)).count).toBe(0);
    expect(await db.selectFrom("dataStreamPoints").selectAll().execute()).toEqual([]);
  });
});
