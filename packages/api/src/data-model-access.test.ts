import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataPointsFixture, formInvalid, type DataPointsFixture } from "./data-points-fixture.js";

describe.each(["1", "2"] as const)("data points and data streams in Form %s", (form) => {
  let { t, token, eveToken, viewerToken, product, post, point } = {} as DataPointsFixture;

  beforeAll(async () => {
    ({ t, token, eveToken, viewerToken, product, post, point } = await dataPointsFixture(form));
  });
  afterAll(() => t.close());

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
