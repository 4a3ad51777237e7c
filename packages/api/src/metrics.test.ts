import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATE, formInvalid, dataModelFixture, type DataModelFixture, type Rec } from "./data-model-fixtures.js";

const CREATE_FIELDS = [
  "aggregateType",
  "chartType",
  "createAt",
  "dataPointIntID",
  "expressions",
  "id",
  "isShow",
  "metricName",
  "productItemIntID",
  "remark",
  "updateAt",
];

describe.each(["1", "2"] as const)("metrics in Form %s", (form) => {
  let { t, token, eveToken, eve, meter, valve, eveProduct, point, stream, post } = {} as DataModelFixture;
  /** Creates a metric as `as` (the admin unless told), expecting 201. */
  const create = (body: Record<string, unknown>, as = token) => post("/metrics", body, as);

  beforeAll(async () => {
    ({ t, token, eveToken, eve, meter, valve, eveProduct, point, stream, post } = await dataModelFixture(form));
  });
  afterAll(() => t.close());

  it("creates a formula metric with 201 from digit strings, answering exactly the spec's create fields", async () => {
    const dp = await point(meter, "temp");
    const r = await t.call(
      "POST",
      "/metrics",
      {
        metricName: "Fahrenheit",
        dataPointIntID: String(dp),
        chartType: "2",
        isShow: "1",
        expressions: "x * 1.8 + 32",
        expressionsLabel: "°F",
        remark: "r",
        productItemIntID: "0",
      },
      token,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(CREATE_FIELDS);
    expect(r.body).toEqual({
      aggregateType: null,
      chartType: 2,
      createAt: expect.stringMatching(DATE),
      dataPointIntID: dp,
      expressions: "x * 1.8 + 32",
      id: expect.any(Number),
      isShow: 1,
      metricName: "Fahrenheit",
      productItemIntID: 0,
      remark: "r",
      updateAt: null,
    });
  });

  it("infers an aggregate metric from aggregateType without expressions, and defaults chartType 1, isShow 0", async () => {
    const dp = await point(meter, "agg", { pointDataType: 17 });
    const m = await create({ metricName: "Peak", dataPointIntID: dp, aggregateType: 1 });
    expect(m).toMatchObject({
      aggregateType: 1,
      chartType: 1,
      isShow: 0,
      expressions: null,
      productItemIntID: 0,
      remark: null,
    });
    const detail = await t.call("GET", `/metrics/${m.id}`, undefined, token);
    expect(detail.body).toMatchObject({
      metricType: 2,
      metricTypeLabel: "Aggregate metric",
      aggregateTypeLabel: "Maximum",
    });
    const formula = await create({ metricName: "Both", dataPointIntID: dp, aggregateType: 3, expressions: "x / 2" });
    expect((await t.call("GET", `/metrics/${formula.id}`, undefined, token)).body).toMatchObject({
      metricType: 1,
      aggregateType: 3,
    });
  });

  it("answers the detail with every Metric field, labels in the caller's language, the data point's name, productID and createUser", async () => {
    const dp = await point(meter, "detail");
    const s = await stream(meter, "detail");
    const m = await create({
      metricName: "Detailed",
      dataPointIntID: dp,
      expressions: "abs(x)",
      aggregateType: 4,
      chartType: 2,
      isShow: 1,
      dataStreamIntID: s,
    });
    const r = await t.call("GET", `/metrics/${m.id}`, undefined, token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: m.id,
      metricName: "Detailed",
      metricType: 1,
      metricTypeLabel: "Formula metric",
      dataPointIntID: dp,
      dataPointName: "Point detail",
      aggregateType: 4,
      aggregateTypeLabel: "Accumulated",
      aggregateData: null,
      aggregateDataLabel: null,
      expressions: "abs(x)",
      expressionsLabel: null,
      chartType: 2,
      chartTypeLabel: "Bar chart",
      isShow: 1,
      productID: meter.productId,
      productItemIntID: 0,
      dataStreamIntID: s,
      remark: null,
      createUser: "admin",
      createAt: expect.stringMatching(DATE),
      updateAt: null,
    });
    const zh = await t.call("GET", `/metrics/${m.id}`, undefined, token, { "accept-language": "zh-CN" });
    expect(zh.body).toMatchObject({
      metricTypeLabel: "公式指标",
      aggregateTypeLabel: "累计值",
      chartTypeLabel: "柱状图",
    });
  });

  it("rejects a body without metricName and dataPointIntID and with bad codes, naming each field", async () => {
    formInvalid(await t.call("POST", "/metrics", { metricName: " " }, token), {
      metricName: expect.any(String),
      dataPointIntID: expect.any(String),
    });
    const dp = await point(meter, "codes");
    formInvalid(
      await t.call(
        "POST",
        "/metrics",
        {
          metricName: "m",
          dataPointIntID: dp,
          chartType: 3,
          isShow: 2,
          aggregateType: 5,
          metricType: 3,
          productItemIntID: -1,
        },
        token,
      ),
      {
        chartType: expect.any(String),
        isShow: expect.any(String),
        aggregateType: expect.any(String),
        metricType: expect.any(String),
        productItemIntID: expect.any(String),
      },
    );
    formInvalid(await t.call("POST", "/metrics", { metricName: "m", dataPointIntID: dp, metricType: 1 }, token), {
      expressions: expect.stringContaining("required"),
    });
    formInvalid(await t.call("POST", "/metrics", { metricName: "m", dataPointIntID: dp, metricType: 2 }, token), {
      aggregateType: expect.stringContaining("required"),
    });
    formInvalid(await t.call("POST", "/metrics", { metricName: "m", dataPointIntID: dp }, token), {
      expressions: expect.stringContaining("required"),
    });
    const notJson = await t.call("POST", "/metrics", "{", token);
    expect(notJson).toMatchObject({ status: 400, body: { errorCode: "BAD_REQUEST" } });
  });

  it("refuses a bad expression with FORM_INVALID naming expressions and the position of the error", async () => {
    const dp = await point(meter, "expr");
    formInvalid(
      await t.call("POST", "/metrics", { metricName: "m", dataPointIntID: dp, expressions: "x * (2 + " }, token),
      { expressions: expect.stringMatching(/^at position 10: /) },
    );
    formInvalid(
      await t.call("POST", "/metrics", { metricName: "m", dataPointIntID: dp, expressions: "process.exit()" }, token),
      {
        expressions:
          'at position 1: unknown name "process" (use x or value, numbers and abs, min, max, round, floor, ceil, sqrt, pow)',
      },
    );
    formInvalid(
      await t.call(
        "POST",
        "/metrics",
        { metricName: "m", dataPointIntID: dp, expressions: "x".padEnd(501, " ") },
        token,
      ),
      { expressions: "at position 501: longer than 500 characters" },
    );
    expect(
      (await t.call("GET", `/metrics?productID=${meter.productId}&_limit=1000`, undefined, token)).body.items.some(
        (m: Rec) => m.dataPointName === "Point expr",
      ),
    ).toBe(false);
  });

  it("refuses data points that are unknown, another tenant's or not numeric with FORM_INVALID naming dataPointIntID", async () => {
    const eves = await point(eveProduct, "eves", {}, eve);
    const text = await point(meter, "text", { pointDataType: 3 });
    for (const id of [eves, 999_999])
      formInvalid(await t.call("POST", "/metrics", { metricName: "m", dataPointIntID: id, expressions: "x" }, token), {
        dataPointIntID: "no such data point",
      });
    formInvalid(await t.call("POST", "/metrics", { metricName: "m", dataPointIntID: text, expressions: "x" }, token), {
      dataPointIntID: expect.stringContaining("numeric"),
    });
    for (const type of [15, 16, 18])
      await create({
        metricName: `type ${type}`,
        dataPointIntID: await point(meter, `n${type}`, { pointDataType: type }),
        expressions: "x",
      });
  });

  it("lists exactly the spec's list fields, newest first, by productID with paging meta", async () => {
    const a = await point(valve, "a");
    const m1 = await create({ metricName: "first", dataPointIntID: a, expressions: "x" });
    const m2 = await create({ metricName: "second", dataPointIntID: a, aggregateType: 2 });
    const r = await t.call("GET", `/metrics?productID=${valve.productId}&_limit=1`, undefined, token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      items: [
        {
          dataPointName: "Point a",
          id: m2.id,
          metricName: "second",
          metricType: 2,
          metricTypeLabel: "Aggregate metric",
        },
      ],
      meta: { count: 2, limit: 1, page: 1 },
    });
    expect(
      (await t.call("GET", `/metrics?productID=${valve.productId}&_page=2&_limit=1`, undefined, token)).body.items[0]
        .id,
    ).toBe(m1.id);
    expect((await t.call("GET", `/metrics?productID=${valve.productId}`, undefined, eveToken)).body).toEqual({
      items: [],
      meta: { count: 0, limit: 10, page: 1 },
    });
    expect(await t.call("GET", "/metrics?_page=x", undefined, token)).toMatchObject({
      status: 400,
      body: { errorCode: "PARAMETER_INVALID", errors: { _page: expect.any(String) } },
    });
  });
});
