import type { Kysely, Selectable } from "kysely";
import type { Database, ProductResourcesTable } from "../store/schema.js";
import { fail } from "../errors.js";
import type { Caller } from "./caller.js";
import { productOfRef } from "./data-points.js";
import { lockTenant } from "./locks.js";
import { paginate, type ListResult, type Page } from "./list.js";

/** Longest codeValue, characters. */
export const MAX_CODE_VALUE = 50;

/** A resource row with its product's string id and its data point's name (null if the point is gone). */
export type ProductResource = Selectable<ProductResourcesTable> & { productId: string; dataPointName: string | null };

/** What a caller sends to create a resource: a code bound to one data point of the product. */
export interface ProductResourceInput {
  productIntId: number;
  codeValue: string;
  dataPointIntId: number;
  /** The product item (LwM2M); 0 when none. */
  productItemIntId?: number | undefined;
  itemName?: string | null | undefined;
}

function selectResources(db: Kysely<Database>, tenantId: string) {
  return db
    .selectFrom("productResources as r")
    .innerJoin("products as p", "p.id", "r.productIntId")
    .leftJoin("dataPoints as dp", "dp.id", "r.dataPointIntId")
    .selectAll("r")
    .select(["p.productId as productId", "dp.dataPointName as dataPointName"])
    .where("r.tenantId", "=", tenantId);
}

/**
 * Creates a product resource. The product must be the caller's (FORM_INVALID
 * naming productIntID) and the data point one of that product's
 * (FORM_INVALID naming dataPointIntID). The same code bound to the same data
 * point and product item twice is DATA_EXISTED naming codeValue.
 */
export async function createProductResource(
  db: Kysely<Database>,
  caller: Caller,
  input: ProductResourceInput,
  now = Date.now(),
): Promise<ProductResource> {
  const codeValue = input.codeValue.trim();
  const productItemIntId = input.productItemIntId ?? 0;
  const e: Record<string, string> = {};
  if (!codeValue) e.codeValue = "required";
  else if (codeValue.length > MAX_CODE_VALUE) e.codeValue = `at most ${MAX_CODE_VALUE} characters`;
  if (!Number.isInteger(productItemIntId) || productItemIntId < 0)
    e.productItemIntID = "must be 0 or a positive integer";
  if (Object.keys(e).length > 0) throw fail.form(e);
  const id = await db.transaction().execute(async (tx) => {
    await lockTenant(tx, caller.tenantId);
    const product = await productOfRef(tx, caller, { productIntId: input.productIntId });
    const point = await tx
      .selectFrom("dataPoints")
      .select("id")
      .where("tenantId", "=", caller.tenantId)
      .where("productIntId", "=", product.id)
      .where("id", "=", input.dataPointIntId)
      .executeTakeFirst();
    if (!point) throw fail.form({ dataPointIntID: "not a data point of the product" });
    const twin = await tx
      .selectFrom("productResources")
      .select("id")
      .where("productIntId", "=", product.id)
      .where("productItemIntId", "=", productItemIntId)
      .where("dataPointIntId", "=", point.id)
      .where("codeValue", "=", codeValue)
      .executeTakeFirst();
    if (twin) throw fail.exists("codeValue", "this data point already has this code");
    const row = await tx
      .insertInto("productResources")
      .values({
        tenantId: caller.tenantId,
        userIntId: caller.userIntId,
        productIntId: product.id,
        codeValue,
        dataPointIntId: point.id,
        itemName: input.itemName?.trim() || null,
        productItemIntId,
        createAt: now,
        updateAt: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  });
  return getProductResource(db, caller, id);
}

/** Lists the caller's product resources, newest first, optionally of one product (its string productID). */
export async function listProductResources(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: { productId?: string | undefined } = {},
): Promise<ListResult<ProductResource>> {
  let q = selectResources(db, caller.tenantId);
  if (filter.productId !== undefined) q = q.where("p.productId", "=", filter.productId);
  return paginate(q, page, "r.id");
}

/** One product resource of the caller's tenant; DATA_NOT_FOUND for unknown and foreign ids alike. */
export async function getProductResource(db: Kysely<Database>, caller: Caller, id: number): Promise<ProductResource> {
  const row = await selectResources(db, caller.tenantId).where("r.id", "=", id).executeTakeFirst();
  if (!row) throw fail.notFound("productResource");
  return row;
}

/**
 * Deletes product resources of the caller's tenant; foreign and unknown ids are ignored (nothing references a
 * resource).
 */
export async function deleteProductResources(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom("productResources").where("tenantId", "=", caller.tenantId).where("id", "in", ids).execute();
}
