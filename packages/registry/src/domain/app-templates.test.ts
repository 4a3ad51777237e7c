import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import {
  createAppTemplate,
  deleteAppTemplates,
  getAppTemplate,
  listAppTemplates,
  updateAppTemplate,
} from "./app-templates.js";
import { dataModelFixture } from "./data-model-fixtures.js";
import { deleteDataPoints } from "./data-points.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const page = { page: 1, limit: 10 };

describe.each(engines)("app templates on $name", (engine) => {
  it("creates a switch template with its joined names and resolved default values", async () => {
    const { db, caller, product, point, stream } = await dataModelFixture(engine);
    const sw = await point(product, "power", { pointDataType: 5, enum: "[0,1]" });
    const level = await point(product, "level");
    const s = await stream(product, "cmd");
    const t = await createAppTemplate(
      db,
      caller,
      {
        productId: product.productId,
        templateName: " Power ",
        templateType: 1,
        dataPointIntId: sw.id,
        dataStreamIntId: s.id,
        dataTransType: 2,
        topic: "cmd",
        enum: [
          { label: "off", value: 0 },
          { label: "on", value: 1 },
        ],
        places: [2, 3],
        itemOperations: ["R", "W"],
        instanceId: "0",
        objectId: "3311",
        itemId: "5850",
        itemName: "On/Off",
        defaultValues: [{ id: level.id, value: "10" }],
      },
      1_000,
    );
    expect(t).toMatchObject({
      templateName: "Power",
      templateType: 1,
      productId: product.productId,
      productIntId: product.id,
      productItemIntId: 0,
      dataPointIntId: sw.id,
      dataPointId: "power",
      dataPointName: "Point power",
      dataStreamIntId: s.id,
      dataStreamName: "Stream cmd",
      dataTransType: 2,
      topic: "cmd",
      places: "[2,3]",
      enum: '[{"label":"off","value":0},{"label":"on","value":1}]',
      itemOperations: '["R","W"]',
      instanceId: "0",
      objectId: "3311",
      itemId: "5850",
      itemName: "On/Off",
      createUser: "root",
      createAt: 1_000,
      updateAt: null,
      defaults: [
        { id: level.id, value: "10", dataPointId: "level", dataPointName: "Point level", enum: null, pointDataType: 1 },
      ],
    });
    expect(await getAppTemplate(db, caller, t.id)).toEqual(t);
    const minimal = await createAppTemplate(db, caller, {
      productIntId: product.id,
      templateName: "Bare",
      templateType: 1,
    });
    expect(minimal).toMatchObject({
      dataPointIntId: null,
      dataPointName: null,
      dataStreamName: null,
      places: null,
      defaults: [],
      defaultValues: null,
    });
  });

  it("refuses references outside the template's product or tenant, naming each field", async () => {
    const { db, caller, other, product, product2, eveProduct, point, stream } = await dataModelFixture(engine);
    const elsewhere = await point(product2, "x");
    const eves = await point(eveProduct, "e", {}, other);
    const s2 = await stream(product2, "t");
    await expect(
      createAppTemplate(db, caller, { productId: eveProduct.productId, templateName: "t", templateType: 1 }),
    ).rejects.toMatchObject({ code: "FORM_INVALID", errors: { productID: "no such product" } });
    await expect(createAppTemplate(db, caller, { templateName: "t", templateType: 1 })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { productIntID: "required" },
    });
    await expect(
      createAppTemplate(db, caller, {
        productId: product.productId,
        templateName: "t",
        templateType: 1,
        dataPointIntId: elsewhere.id,
        dataStreamIntId: s2.id,
        defaultValues: [
          { id: eves.id, value: 1 },
          { id: 9_999, value: 2 },
        ],
      }),
    ).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: {
        dataPointIntID: expect.any(String),
        dataStreamIntID: expect.any(String),
        defaultValues: `not data points of the template's product: ${eves.id}, 9999`,
      },
    });
    expect((await listAppTemplates(db, caller, page)).count).toBe(0);
  });

  it("names broken field rules", async () => {
    const { db, caller, product, point } = await dataModelFixture(engine);
    const p = await point(product, "a");
    await expect(
      createAppTemplate(db, caller, {
        productId: product.productId,
        templateName: " ",
        templateType: 2,
        dataTransType: 4,
        productItemIntId: -1,
        places: [1, 2.5] as [number, number],
        defaultValues: [
          { id: p.id, value: 1 },
          { id: p.id, value: 2 },
        ],
      }),
    ).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: {
        templateName: "required",
        templateType: expect.any(String),
        dataTransType: expect.any(String),
        productItemIntID: expect.any(String),
        places: expect.any(String),
        defaultValues: "a data point appears more than once",
      },
    });
  });

  it("lists templates newest first, by product string or integer id, and pages them", async () => {
    const { db, caller, other, product, product2, eveProduct } = await dataModelFixture(engine);
    const a = await createAppTemplate(db, caller, { productId: product.productId, templateName: "a", templateType: 1 });
    const b = await createAppTemplate(db, caller, {
      productId: product2.productId,
      templateName: "b",
      templateType: 1,
    });
    const c = await createAppTemplate(db, caller, { productId: product.productId, templateName: "c", templateType: 1 });
    await createAppTemplate(db, other, { productId: eveProduct.productId, templateName: "e", templateType: 1 });
    expect((await listAppTemplates(db, caller, page)).items.map((t) => t.id)).toEqual([c.id, b.id, a.id]);
    expect((await listAppTemplates(db, caller, page, { productId: product.productId })).items.map((t) => t.id)).toEqual(
      [c.id, a.id],
    );
    expect((await listAppTemplates(db, caller, page, { productIntId: product2.id })).items.map((t) => t.id)).toEqual([
      b.id,
    ]);
    expect(await listAppTemplates(db, caller, { page: 2, limit: 2 })).toMatchObject({
      count: 3,
      page: 2,
      limit: 2,
      items: [{ id: a.id }],
    });
  });

  it("edits a template under the create rules, keeps its product and sets updateAt", async () => {
    const { db, caller, product, product2, point } = await dataModelFixture(engine);
    const [p, q, x] = [await point(product, "p"), await point(product, "q"), await point(product2, "x")];
    const t = await createAppTemplate(
      db,
      caller,
      {
        productId: product.productId,
        templateName: "t",
        templateType: 1,
        dataPointIntId: p.id,
        places: [0, 0],
        topic: "a",
      },
      1_000,
    );
    const edited = await updateAppTemplate(
      db,
      caller,
      t.id,
      {
        productId: product.productId,
        templateName: "u",
        dataPointIntId: q.id,
        places: [1, 1],
        topic: "",
        defaultValues: [{ id: p.id, value: true }],
      },
      2_000,
    );
    expect(edited).toMatchObject({
      templateName: "u",
      dataPointIntId: q.id,
      places: "[1,1]",
      topic: null,
      defaults: [{ id: p.id, value: true }],
      createAt: 1_000,
      updateAt: 2_000,
    });
    await expect(updateAppTemplate(db, caller, t.id, { productId: product2.productId })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { productID: "cannot be changed" },
    });
    await expect(updateAppTemplate(db, caller, t.id, { dataPointIntId: x.id })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { dataPointIntID: expect.any(String) },
    });
    expect((await getAppTemplate(db, caller, t.id)).templateName).toBe("u");
  });

  it("leaves out default values whose data point is gone", async () => {
    const { db, caller, product, point } = await dataModelFixture(engine);
    const [p, q] = [await point(product, "p"), await point(product, "q")];
    const t = await createAppTemplate(db, caller, {
      productId: product.productId,
      templateName: "t",
      templateType: 1,
      defaultValues: [
        { id: p.id, value: 1 },
        { id: q.id, value: 2 },
      ],
    });
    await deleteDataPoints(db, caller, [q.id]);
    expect((await getAppTemplate(db, caller, t.id)).defaults.map((d) => d.id)).toEqual([p.id]);
  });

  it("answers DATA_NOT_FOUND for another tenant's template, and deletes only the caller's", async () => {
    const { db, caller, other, product } = await dataModelFixture(engine);
    const t = await createAppTemplate(db, caller, { productId: product.productId, templateName: "t", templateType: 1 });
    const notFound = { code: "DATA_NOT_FOUND", errors: { appTemplate: "not found" } };
    await expect(getAppTemplate(db, other, t.id)).rejects.toMatchObject(notFound);
    await expect(updateAppTemplate(db, other, t.id, { templateName: "stolen" })).rejects.toMatchObject(notFound);
    await deleteAppTemplates(db, other, [t.id]);
    expect((await getAppTemplate(db, caller, t.id)).templateName).toBe("t");
    await deleteAppTemplates(db, caller, [t.id, 9_999]);
    expect((await listAppTemplates(db, caller, page)).count).toBe(0);
  });
});
