import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProduct, type Caller, type Product } from "@iot/registry";
import { testApp } from "./test-app.js";

type Rec = Record<string, unknown> & { id: number };
type Reply = { status: number; body: { errorCode: string; errors: Record<string, string> } & Record<string, unknown> };

const DATE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

describe.each(["1", "2"] as const)("product resources and app templates in Form %s", (form) => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let token: string;
  let eveToken: string;
  let viewerToken: string;
  let admin: Caller;
  let eve: Caller;
  let meter: Product;
  let valve: Product;
  let eveProduct: Product;

  const addUser = (tenantId: string, username: string, role: string) => t.addUser(tenantId, username, role);
  /** Inserts a data point row directly (the data point API is not under test here). */
  const point = async (
    p: Product,
    dataPointId: string,
    over: { pointDataType?: number; enum?: string } = {},
    who = admin,
  ) =>
    (
      await t.store.db
        .insertInto("dataPoints")
        .values({
          tenantId: who.tenantId,
          userIntId: who.userIntId,
          productIntId: p.id,
          dataPointId,
          dataPointName: `Point ${dataPointId}`,
          pointDataType: over.pointDataType ?? 1,
          dataTransType: 3,
          unitName: null,
          unitSymbol: null,
          upperLimit: null,
          lowerLimit: null,
          dataStep: null,
          binarySize: null,
          faultValue: null,
          isDiscard: null,
          isLocationType: null,
          locationType: null,
          enum: over.enum ?? null,
          registerAddr: null,
          detail: null,
          createAt: Date.now(),
          updateAt: null,
        })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
  const stream = async (p: Product, topic: string, who = admin) =>
    (
      await t.store.db
        .insertInto("dataStreams")
        .values({
          tenantId: who.tenantId,
          userIntId: who.userIntId,
          productIntId: p.id,
          streamName: `Stream ${topic}`,
          streamType: 1,
          streamDataType: 1,
          topic,
          detail: null,
          createAt: Date.now(),
          updateAt: null,
        })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
  const formInvalid = (r: Reply, errors: Record<string, unknown>) => {
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.errorCode).toBe("FORM_INVALID");
    expect(r.body.errors).toEqual(errors);
  };
  const post = async (path: string, body: Record<string, unknown>, as = token) => {
    const r = await t.call("POST", path, body, as);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as Rec;
  };

  beforeAll(async () => {
    t = await testApp(form);
    token = await t.login();
    const root = await t.store.db.selectFrom("users").selectAll().where("id", "=", 1).executeTakeFirstOrThrow();
    admin = { userIntId: root.id, username: root.username, tenantId: root.tenantId, role: "admin", serviceAdmin: true };
    await t.addTenant("tenant2");
    ({ token: eveToken, caller: eve } = await addUser("tenant2", "eve", "admin"));
    ({ token: viewerToken } = await addUser(admin.tenantId, "viewer", "viewer"));
    meter = await createProduct(t.store.db, admin, { productName: "Meter", cloudProtocol: 1 });
    valve = await createProduct(t.store.db, admin, { productName: "Valve", cloudProtocol: 1 });
    eveProduct = await createProduct(t.store.db, eve, { productName: "Eve's", cloudProtocol: 1 });
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
