import { z } from "zod";
import { createProductResource, deleteProductResources, listProductResources, MAX_CODE_VALUE } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { productResource } from "../forms/product-resources.js";
import { idsFrom, idsQuery, intField, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import { listOf } from "../forms/common.js";
import { productResourceRecords } from "../forms/product-resources.js";

/** `codeValue` is a String; a number is taken as its digits. */
const codeValue = z
  .union([z.string(), z.number().int()])
  .transform(String)
  .pipe(z.string().trim().min(1, "required").max(MAX_CODE_VALUE, `at most ${MAX_CODE_VALUE} characters`));

const createBody = z
  .strictObject({
    codeValue,
    dataPointIntID: intField,
    productIntID: intField,
    productItemIntID: intField.refine((v) => v >= 0, "must be 0 or a positive integer").optional(),
    itemName: z.string().max(50, "at most 50 characters").nullish(),
  })
  .transform((b) => ({
    codeValue: b.codeValue,
    dataPointIntId: b.dataPointIntID,
    productIntId: b.productIntID,
    productItemIntId: b.productItemIntID,
    itemName: b.itemName,
  }));

/** Product resources: list, create, delete (the spec has no edit). The data point must be of the named product. */
export function productResourceRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  return new ApiRouter(docs, "Product resources")
    .get(
      "/product_resources",
      {
        summary: "List product resources, optionally of one product",
        response: listOf(productResourceRecords.list),
        query: listQuery({ productID: z.string().optional() }),
      },
      async (c, { query }) =>
        list(
          await listProductResources(db, c.get("caller"), pageFrom(query), { productId: query.productID || undefined }),
          (r) => productResource(r, "list", c.get("view")),
        ),
    )
    .post(
      "/product_resources",
      { summary: "Bind a code to a data point of a product", body: createBody, response: productResourceRecords.write },
      async (c, { body }) =>
        productResource(await createProductResource(db, c.get("caller"), body), "write", c.get("view")),
    )
    .delete("/product_resources", { summary: "Delete product resources", query: idsQuery }, async (c, { query }) => {
      await deleteProductResources(db, c.get("caller"), idsFrom(query));
    }).app;
}
