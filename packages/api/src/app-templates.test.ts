import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATE, formInvalid, dataModelFixture, type DataModelFixture, type Rec } from "./data-model-fixtures.js";

describe.each(["1", "2"] as const)("product resources and app templates in Form %s", (form) => {
  let { t, token, eveToken, viewerToken, eve, meter, valve, eveProduct, point, stream, post } = {} as DataModelFixture;

  beforeAll(async () => {
    ({ t, token, eveToken, viewerToken, eve, meter, valve, eveProduct, point, stream, post } =
      await dataModelFixture(form));
  });
  afterAll(() => t.close());

  describe("app templates", () => {
    const STORED = [
      "createAt",
      "dataPointIntID",
      "dataStreamIntID",
      "dataTransType",
      "defaultValues",
      "enum",
      "id",
      "instanceID",
      "itemID",
      "itemName",
      "itemOperations",
      "objectID",
      "places",
      "productID",
      "productItemIntID",
      "templateName",
      "templateType",
      "topic",
      "updateAt",
    ];

    it("creates a switch template with 201 and answers the stored record with resolved default values", async () => {
      const sw = await point(meter, "sw", { pointDataType: 5, enum: "[0,1]" });
      const level = await point(meter, "level", { enum: "[1,2]" });
      const s = await stream(meter, "cmd");
      const r = await t.call(
        "POST",
        "/app_templates",
        {
          productID: meter.productId,
          templateName: "Power",
          templateType: "1",
          dataPointIntID: String(sw),
          dataStreamIntID: s,
          dataTransType: 2,
          topic: "cmd",
          enum: '[{"label":"off","value":0},{"label":"on","value":1}]',
          places: ["1", 2],
          instanceID: 0,
          itemID: "5850",
          itemName: "On/Off",
          itemOperations: "RW",
          objectID: 3311,
          defaultValues: [{ id: level, value: "2", dataPointName: "ignored", pointDataType: 99 }],
        },
        token,
      );
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(Object.keys(r.body).sort()).toEqual(STORED);
      expect(r.body).toEqual({
        id: expect.any(Number),
        templateName: "Power",
        templateType: 1,
        productID: meter.productId,
        productItemIntID: 0,
        dataPointIntID: sw,
        dataStreamIntID: s,
        dataTransType: 2,
        topic: "cmd",
        enum: [
          { label: "off", value: 0 },
          { label: "on", value: 1 },
        ],
        places: [1, 2],
        instanceID: "0",
        itemID: "5850",
        itemName: "On/Off",
        itemOperations: "RW",
        objectID: "3311",
        defaultValues: [
          { dataPointID: "level", dataPointName: "Point level", enum: [1, 2], id: level, pointDataType: 1, value: "2" },
        ],
        createAt: expect.stringMatching(DATE),
        updateAt: null,
      });
      const detail = await t.call("GET", `/app_templates/${r.body.id}`, undefined, token);
      expect(detail.body).toEqual({
        ...r.body,
        templateTypeLabel: "Switch",
        dataPointID: "sw",
        dataPointName: "Point sw",
        dataStreamName: "Stream cmd",
        createUser: "admin",
      });
      expect(
        (await t.call("GET", `/app_templates/${r.body.id}`, undefined, token, { "accept-language": "zh-CN" })).body
          .templateTypeLabel,
      ).toBe("开关");
    });

    it("lists a product's templates as {items, meta}, newest first", async () => {
      const a = await post("/app_templates", { productID: valve.productId, templateName: "A", templateType: 1 });
      const b = await post("/app_templates", { productIntID: valve.id, templateName: "B", templateType: 1 });
      const r = await t.call("GET", `/app_templates?productID=${valve.productId}`, undefined, token);
      expect(r.status).toBe(200);
      expect(r.body.meta).toEqual({ count: 2, limit: 10, page: 1 });
      expect(r.body.items.map((x: Rec) => x.id)).toEqual([b.id, a.id]);
      expect(r.body.items[0]).toMatchObject({
        templateName: "B",
        templateTypeLabel: "Switch",
        dataPointID: null,
        dataPointName: null,
        dataStreamName: null,
        defaultValues: [],
        places: null,
      });
      expect(
        (await t.call("GET", `/app_templates?productID=${valve.productId}`, undefined, eveToken)).body.meta.count,
      ).toBe(0);
    });

    it("rejects bad fields and references outside the template's product or tenant, naming each field", async () => {
      formInvalid(await t.call("POST", "/app_templates", { productID: meter.productId }, token), {
        templateName: expect.any(String),
        templateType: expect.any(String),
      });
      formInvalid(
        await t.call(
          "POST",
          "/app_templates",
          {
            productID: meter.productId,
            templateName: "x",
            templateType: 2,
            places: [1],
            dataTransType: 4,
            enum: "{}",
            defaultValues: [{ value: 1 }],
          },
          token,
        ),
        {
          templateType: expect.any(String),
          places: expect.any(String),
          dataTransType: expect.any(String),
          enum: expect.any(String),
          "defaultValues.0.id": expect.any(String),
        },
      );
      formInvalid(
        await t.call(
          "POST",
          "/app_templates",
          { productID: eveProduct.productId, templateName: "x", templateType: 1 },
          token,
        ),
        { productID: "no such product" },
      );
      const elsewhere = await point(valve, "tpl-elsewhere");
      const eves = await point(eveProduct, "tpl-eves", {}, eve);
      const eveStream = await stream(eveProduct, "tpl", eve);
      formInvalid(
        await t.call(
          "POST",
          "/app_templates",
          {
            productID: meter.productId,
            templateName: "x",
            templateType: 1,
            dataPointIntID: elsewhere,
            dataStreamIntID: eveStream,
            defaultValues: [{ id: eves, value: 1 }],
          },
          token,
        ),
        {
          dataPointIntID: expect.any(String),
          dataStreamIntID: expect.any(String),
          defaultValues: `not data points of the template's product: ${eves}`,
        },
      );
    });

    it("edits with the whole detail record sent back, keeping the product", async () => {
      const [p, q] = [await point(meter, "edit-p"), await point(meter, "edit-q")];
      const created = await post("/app_templates", {
        productID: meter.productId,
        templateName: "Edit me",
        templateType: 1,
        dataPointIntID: p,
        places: [0, 0],
      });
      const detail = (await t.call("GET", `/app_templates/${created.id}`, undefined, token)).body as Rec;
      const r = await t.call(
        "PUT",
        `/app_templates/${created.id}`,
        { ...detail, templateName: "Edited", dataPointIntID: q, places: [3, 4], defaultValues: [{ id: p, value: 1 }] },
        token,
      );
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(STORED);
      expect(r.body).toMatchObject({
        templateName: "Edited",
        dataPointIntID: q,
        places: [3, 4],
        defaultValues: [{ id: p, dataPointID: "edit-p", value: 1 }],
        updateAt: expect.stringMatching(DATE),
      });
      formInvalid(await t.call("PUT", `/app_templates/${created.id}`, { productID: valve.productId }, token), {
        productID: "cannot be changed",
      });
      formInvalid(
        await t.call("PUT", `/app_templates/${created.id}`, { dataPointIntID: await point(valve, "edit-x") }, token),
        { dataPointIntID: expect.any(String) },
      );
      expect(
        (await t.call("PUT", `/app_templates/${created.id}`, { dataPointIntID: null, places: null }, token)).body,
      ).toMatchObject({ dataPointIntID: null, places: null });
    });

    it("answers 404 for another tenant's template, deletes only the caller's, and refuses writes by a viewer", async () => {
      const tpl = await post("/app_templates", { productID: meter.productId, templateName: "Mine", templateType: 1 });
      expect((await t.call("GET", `/app_templates/${tpl.id}`, undefined, eveToken)).status).toBe(404);
      expect((await t.call("PUT", `/app_templates/${tpl.id}`, { templateName: "stolen" }, eveToken)).status).toBe(404);
      expect((await t.call("DELETE", `/app_templates?ids=${tpl.id}`, undefined, eveToken)).status).toBe(204);
      expect((await t.call("GET", `/app_templates/${tpl.id}`, undefined, viewerToken)).body.templateName).toBe("Mine");
      expect(
        (
          await t.call(
            "POST",
            "/app_templates",
            { productID: meter.productId, templateName: "v", templateType: 1 },
            viewerToken,
          )
        ).status,
      ).toBe(403);
      expect((await t.call("PUT", `/app_templates/${tpl.id}`, { templateName: "v" }, viewerToken)).status).toBe(403);
      expect((await t.call("DELETE", `/app_templates?ids=${tpl.id}`, undefined, viewerToken)).status).toBe(403);
      expect((await t.call("DELETE", `/app_templates?ids=${tpl.id}`, undefined, token)).status).toBe(204);
      expect((await t.call("GET", `/app_templates/${tpl.id}`, undefined, token)).status).toBe(404);
    });
  });
});
