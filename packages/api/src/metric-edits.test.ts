import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATE, formInvalid, dataModelFixture, type DataModelFixture, type Rec } from "./data-model-fixtures.js";

describe.each(["1", "2"] as const)("metrics in Form %s", (form) => {
  let { t, token, eveToken, viewerToken, meter, valve, point, stream, post } = {} as DataModelFixture;
  /** Creates a metric as `as` (the admin unless told), expecting 201. */
  const create = (body: Record<string, unknown>, as = token) => post("/metrics", body, as);

  beforeAll(async () => {
    ({ t, token, eveToken, viewerToken, meter, valve, point, stream, post } = await dataModelFixture(form));
  });
  afterAll(() => t.close());

  it("edits with the whole detail record sent back, dropping read-only members, and answers the edit record", async () => {
    const [a, b] = [await point(valve, "edit-a"), await point(valve, "edit-b")];
    const s = await stream(valve, "edit");
    const m = await create({ metricName: "Editable", dataPointIntID: a, expressions: "x" });
    const detail = (await t.call("GET", `/metrics/${m.id}`, undefined, token)).body as Rec;
    const r = await t.call(
      "PUT",
      `/metrics/${m.id}`,
      {
        ...detail,
        id: 1,
        productID: "other",
        createUser: "x",
        metricName: "Edited",
        dataPointIntID: String(b),
        expressions: "round(x)",
        expressionsLabel: "rounded",
        dataStreamIntID: s,
      },
      token,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({
      aggregateType: null,
      chartType: 1,
      createAt: detail.createAt,
      dataPointIntID: b,
      expressions: "round(x)",
      id: m.id,
      isShow: 0,
      metricName: "Edited",
      productItemIntID: 0,
      remark: null,
      updateAt: expect.stringMatching(DATE),
      metricType: 1,
      expressionsLabel: "rounded",
      dataStreamIntID: s,
    });
    formInvalid(await t.call("PUT", `/metrics/${m.id}`, { dataPointIntID: await point(meter, "elsewhere") }, token), {
      dataPointIntID: "not a data point of the metric's product",
    });
    formInvalid(await t.call("PUT", `/metrics/${m.id}`, { dataStreamIntID: await stream(meter, "elsewhere") }, token), {
      dataStreamIntID: expect.any(String),
    });
    formInvalid(await t.call("PUT", `/metrics/${m.id}`, { expressions: "x +* 1" }, token), {
      expressions: expect.stringMatching(/^at position 4: /),
    });
    formInvalid(await t.call("PUT", `/metrics/${m.id}`, { metricName: "" }, token), { metricName: expect.any(String) });
    expect((await t.call("PUT", `/metrics/${m.id}`, { dataStreamIntID: "" }, token)).body.dataStreamIntID).toBeNull();
  });

  it("answers 404 for another tenant's and unknown metrics, and deletes only the caller's", async () => {
    const m = await create({ metricName: "Mine", dataPointIntID: await point(meter, "mine"), expressions: "x" });
    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", { metricName: "stolen" }],
    ] as const) {
      expect(await t.call(method, `/metrics/${m.id}`, body, eveToken)).toMatchObject({
        status: 404,
        body: { errorCode: "DATA_NOT_FOUND" },
      });
    }
    expect((await t.call("GET", "/metrics/999999", undefined, token)).status).toBe(404);
    expect((await t.call("GET", "/metrics/abc", undefined, token)).status).toBe(404);
    expect((await t.call("DELETE", `/metrics?ids=${m.id}`, undefined, eveToken)).status).toBe(204);
    expect((await t.call("GET", `/metrics/${m.id}`, undefined, token)).body.metricName).toBe("Mine");
    expect(await t.call("DELETE", "/metrics?ids=a,b", undefined, token)).toMatchObject({
      status: 400,
      body: { errorCode: "PARAMETER_INVALID", errors: { ids: expect.any(String) } },
    });
    expect(await t.call("DELETE", `/metrics?ids=${m.id},999999`, undefined, token)).toEqual({
      status: 204,
      body: null,
    });
    expect((await t.call("GET", `/metrics/${m.id}`, undefined, token)).status).toBe(404);
  });

  it("lets a viewer read but not write (403)", async () => {
    const dp = await point(meter, "viewer");
    const m = await create({ metricName: "Seen", dataPointIntID: dp, expressions: "x" });
    expect((await t.call("GET", "/metrics", undefined, viewerToken)).status).toBe(200);
    expect((await t.call("GET", `/metrics/${m.id}`, undefined, viewerToken)).status).toBe(200);
    for (const [method, path, body] of [
      ["POST", "/metrics", { metricName: "v", dataPointIntID: dp, expressions: "x" }],
      ["PUT", `/metrics/${m.id}`, { metricName: "v" }],
      ["DELETE", `/metrics?ids=${m.id}`, undefined],
    ] as const) {
      expect(await t.call(method, path, body, viewerToken)).toMatchObject({
        status: 403,
        body: { errorCode: "PERMISSION_DENIED" },
      });
    }
    expect((await t.call("GET", `/metrics/${m.id}`, undefined, token)).body.metricName).toBe("Seen");
  });
});
