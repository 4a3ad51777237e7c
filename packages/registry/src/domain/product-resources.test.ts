import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { dataModelFixture } from "./data-model-fixtures.js";
import {
  createProductResource,
  deleteProductResources,
  getProductResource,
  listProductResources,
} from "./product-resources.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const page = { page: 1, limit: 10 };

describe.each(engines)("product resources on $name", (engine) => {
  it("creates a resource bound to a data point of the product, with its name and product", async () => {
    const { db, caller, product, point } = await dataModelFixture(engine);
    const p = await point(product, "temp");
    const r = await createProductResource(
      db,
      caller,
      { productIntId: product.id, codeValue: " 2 ", dataPointIntId: p.id },
      1_000,
    );
    expect(r).toMatchObject({
      codeValue: "2",
      dataPointIntId: p.id,
      dataPointName: "Point temp",
      productIntId: product.id,
      productId: product.productId,
      productItemIntId: 0,
      itemName: null,
      createAt: 1_000,
      updateAt: null,
    });
    expect(await getProductResource(db, caller, r.id)).toEqual(r);
  });

  it("refuses another tenant's or unknown product (productIntID) and points of other products (dataPointIntID)", async () => {
    const { db, caller, other, product, product2, eveProduct, point } = await dataModelFixture(engine);
    const p = await point(product, "a");
    const p2 = await point(product2, "b");
    const eves = await point(eveProduct, "e", {}, other);
    for (const productIntId of [eveProduct.id, 9_999]) {
      await expect(
        createProductResource(db, caller, { productIntId, codeValue: "1", dataPointIntId: p.id }),
      ).rejects.toMatchObject({ code: "FORM_INVALID", errors: { productIntID: "no such product" } });
    }
    for (const dataPointIntId of [p2.id, eves.id, 9_999]) {
      await expect(
        createProductResource(db, caller, { productIntId: product.id, codeValue: "1", dataPointIntId }),
      ).rejects.toMatchObject({ code: "FORM_INVALID", errors: { dataPointIntID: expect.any(String) } });
    }
    await expect(
      createProductResource(db, other, { productIntId: product.id, codeValue: "1", dataPointIntId: p.id }),
    ).rejects.toMatchObject({ errors: { productIntID: "no such product" } });
  });

  it("refuses a blank or long codeValue, a negative productItemIntID and an exact twin", async () => {
    const { db, caller, product, point } = await dataModelFixture(engine);
    const p = await point(product, "a");
    await expect(
      createProductResource(db, caller, {
        productIntId: product.id,
        codeValue: " ",
        dataPointIntId: p.id,
        productItemIntId: -1,
      }),
    ).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { codeValue: "required", productItemIntID: expect.any(String) },
    });
    await expect(
      createProductResource(db, caller, { productIntId: product.id, codeValue: "x".repeat(51), dataPointIntId: p.id }),
    ).rejects.toMatchObject({ errors: { codeValue: expect.any(String) } });
    await createProductResource(db, caller, { productIntId: product.id, codeValue: "1", dataPointIntId: p.id });
    await expect(
      createProductResource(db, caller, { productIntId: product.id, codeValue: "1", dataPointIntId: p.id }),
    ).rejects.toMatchObject({ code: "DATA_EXISTED", errors: { codeValue: expect.any(String) } });
    await createProductResource(db, caller, {
      productIntId: product.id,
      codeValue: "1",
      dataPointIntId: p.id,
      productItemIntId: 3,
      itemName: "Item",
    });
    await createProductResource(db, caller, { productIntId: product.id, codeValue: "2", dataPointIntId: p.id });
    expect((await listProductResources(db, caller, page)).count).toBe(3);
  });

  it("lists resources newest first, by product and paged; another tenant sees none and deletes none", async () => {
    const { db, caller, other, product, product2, point } = await dataModelFixture(engine);
    const [a, b] = [await point(product, "a"), await point(product2, "b")];
    const r1 = await createProductResource(db, caller, {
      productIntId: product.id,
      codeValue: "1",
      dataPointIntId: a.id,
    });
    const r2 = await createProductResource(db, caller, {
      productIntId: product2.id,
      codeValue: "1",
      dataPointIntId: b.id,
    });
    const r3 = await createProductResource(db, caller, {
      productIntId: product.id,
      codeValue: "2",
      dataPointIntId: a.id,
    });
    expect((await listProductResources(db, caller, page)).items.map((r) => r.id)).toEqual([r3.id, r2.id, r1.id]);
    expect(
      (await listProductResources(db, caller, page, { productId: product.productId })).items.map((r) => r.id),
    ).toEqual([r3.id, r1.id]);
    expect(await listProductResources(db, caller, { page: 2, limit: 2 })).toMatchObject({
      count: 3,
      page: 2,
      limit: 2,
      items: [{ id: r1.id }],
    });
    expect((await listProductResources(db, other, page)).count).toBe(0);
    await expect(getProductResource(db, other, r1.id)).rejects.toMatchObject({ code: "DATA_NOT_FOUND" });
    await deleteProductResources(db, other, [r1.id, r2.id]);
    expect((await listProductResources(db, caller, page)).count).toBe(3);
    await deleteProductResources(db, caller, [r1.id, r2.id, 9_999]);
    expect((await listProductResources(db, caller, page)).items.map((r) => r.id)).toEqual([r3.id]);
  });
});
