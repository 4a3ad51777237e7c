import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATE, formInvalid, dataModelFixture, type DataModelFixture, type Rec } from "./data-model-fixtures.js";

describe.each(["1", "2"] as const)("product resources and app templates in Form %s", (form) => {
  let { t, token, eveToken, viewerToken, eve, meter, valve, eveProduct, point, post } = {} as DataModelFixture;

  beforeAll(async () => {
    ({ t, token, eveToken, viewerToken, eve, meter, valve, eveProduct, point, post } = await dataModelFixture(form));
  });
  afterAll(() => t.close());

  describe("product resources", () => {
    it("creates a resource with 201 from a digit-string productIntID, answering exactly the spec's create fields", async () => {
      const dp = await point(meter, "res");
      const r = await t.call(
        "POST",
        "/product_resources",
        { codeValue: "2", dataPointIntID: dp, productIntID: String(meter.id), productItemIntID: 0 },
        token,
      );
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body).toEqual({
        codeValue: "2",
        createAt: expect.stringMatching(DATE),
        dataPointIntID: dp,
        id: expect.any(Number),
        productItemIntID: 0,
        updateAt: null,
      });
    });

    it("lists resources of a product newest first with the spec's fields and labels", async () => {
      const dp = await point(valve, "listed");
      const a = await post("/product_resources", {
        codeValue: "1",
        dataPointIntID: dp,
        productIntID: valve.id,
        productItemIntID: 0,
      });
      const b = await post("/product_resources", {
        codeValue: "custom",
        dataPointIntID: dp,
        productIntID: valve.id,
        productItemIntID: 4,
        itemName: "Item",
      });
      const r = await t.call("GET", `/product_resources?productID=${valve.productId}`, undefined, token);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        items: [
          {
            id: b.id,
            codeValue: "custom",
            codeValueLabel: null,
            dataPointIntID: dp,
            dataPointName: "Point listed",
            itemName: "Item",
            productItemIntID: 4,
            createAt: expect.stringMatching(DATE),
            updateAt: null,
          },
          {
            id: a.id,
            codeValue: "1",
            codeValueLabel: "Status",
            dataPointIntID: dp,
            dataPointName: "Point listed",
            itemName: null,
            productItemIntID: 0,
            createAt: expect.stringMatching(DATE),
            updateAt: null,
          },
        ],
        meta: { count: 2, limit: 10, page: 1 },
      });
      expect(
        (
          await t.call("GET", `/product_resources?productID=${valve.productId}&_limit=1&_page=2`, undefined, token, {
            "accept-language": "zh",
          })
        ).body.items,
      ).toEqual([expect.objectContaining({ id: a.id, codeValueLabel: "状态" })]);
      expect(
        (await t.call("GET", `/product_resources?productID=${valve.productId}`, undefined, eveToken)).body.meta.count,
      ).toBe(0);
    });

    it("rejects missing fields, another tenant's product and data points of other products, naming each field", async () => {
      formInvalid(await t.call("POST", "/product_resources", {}, token), {
        codeValue: expect.any(String),
        dataPointIntID: expect.any(String),
        productIntID: expect.any(String),
      });
      const dp = await point(meter, "ref");
      const elsewhere = await point(valve, "elsewhere");
      const eves = await point(eveProduct, "eves", {}, eve);
      formInvalid(
        await t.call(
          "POST",
          "/product_resources",
          { codeValue: "1", dataPointIntID: eves, productIntID: eveProduct.id },
          token,
        ),
        { productIntID: "no such product" },
      );
      for (const id of [elsewhere, eves, 999_999]) {
        formInvalid(
          await t.call(
            "POST",
            "/product_resources",
            { codeValue: "1", dataPointIntID: id, productIntID: meter.id },
            token,
          ),
          { dataPointIntID: "not a data point of the product" },
        );
      }
      formInvalid(
        await t.call(
          "POST",
          "/product_resources",
          { codeValue: " ", dataPointIntID: dp, productIntID: "x", productItemIntID: -1 },
          token,
        ),
        {
          codeValue: expect.any(String),
          productIntID: expect.any(String),
          productItemIntID: expect.any(String),
        },
      );
      await post("/product_resources", { codeValue: 3, dataPointIntID: dp, productIntID: meter.id });
      expect(
        await t.call(
          "POST",
          "/product_resources",
          { codeValue: "3", dataPointIntID: dp, productIntID: meter.id },
          token,
        ),
      ).toMatchObject({ status: 400, body: { errorCode: "DATA_EXISTED", errors: { codeValue: expect.any(String) } } });
    });

    it("deletes only the caller's resources, and a viewer may read but not write", async () => {
      const dp = await point(meter, "del");
      const r = await post("/product_resources", { codeValue: "4", dataPointIntID: dp, productIntID: meter.id });
      expect((await t.call("DELETE", `/product_resources?ids=${r.id}`, undefined, eveToken)).status).toBe(204);
      expect(
        (
          await t.call("GET", `/product_resources?productID=${meter.productId}&_limit=1000`, undefined, viewerToken)
        ).body.items.map((x: Rec) => x.id),
      ).toContain(r.id);
      expect(
        await t.call(
          "POST",
          "/product_resources",
          { codeValue: "5", dataPointIntID: dp, productIntID: meter.id },
          viewerToken,
        ),
      ).toMatchObject({ status: 403, body: { errorCode: "PERMISSION_DENIED" } });
      expect((await t.call("DELETE", `/product_resources?ids=${r.id}`, undefined, viewerToken)).status).toBe(403);
      expect(await t.call("DELETE", `/product_resources?ids=${r.id}`, undefined, token)).toEqual({
        status: 204,
        body: null,
      });
      expect(
        (
          await t.call("GET", `/product_resources?productID=${meter.productId}&_limit=1000`, undefined, token)
        ).body.items.map((x: Rec) => x.id),
      ).not.toContain(r.id);
      expect((await t.call("DELETE", "/product_resources", undefined, token)).body).toMatchObject({
        errorCode: "PARAMETER_INVALID",
        errors: { ids: expect.any(String) },
      });
    });
  });
});
