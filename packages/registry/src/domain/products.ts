import { sql, type Kysely } from "kysely";
import type { Database, ProductsTable } from "../store/schema.js";
import type { Selectable } from "kysely";
import { fail, isUniqueViolation } from "../errors.js";
import type { Caller } from "./caller.js";
import { randomCode } from "./ids.js";
import { deleteUnreferenced, heldBy } from "./delete-unreferenced.js";
import { ilike, paginate, type ListResult, type Page } from "./list.js";

/** A product row with the number of devices made from it, of its data points and streams, and its creator's name. */
export type Product = Selectable<ProductsTable> & {
  deviceCount: number;
  dataPointCount: number;
  dataStreamCount: number;
  createUser: string | null;
};

/** Fields a caller may set on create. */
export interface ProductInput {
  productName: string;
  description?: string | null | undefined;
  /** 1 MQTT … 7 Modbus; fixed after creation. */
  cloudProtocol: number;
}

function selectProducts(db: Kysely<Database>, tenantId: string) {
  return db
    .selectFrom("products as p")
    .leftJoin("users as u", "u.id", "p.userIntId")
    .selectAll("p")
    .select("u.username as createUser")
    .select((eb) =>
      eb
        .selectFrom("devices as d")
        .select(sql<number>`count(*)`.as("n"))
        .whereRef("d.productIntId", "=", "p.id")
        .as("deviceCount"),
    )
    .select((eb) =>
      eb
        .selectFrom("dataPoints as dp")
        .select(sql<number>`count(*)`.as("n"))
        .whereRef("dp.productIntId", "=", "p.id")
        .as("dataPointCount"),
    )
    .select((eb) =>
      eb
        .selectFrom("dataStreams as ds")
        .select(sql<number>`count(*)`.as("n"))
        .whereRef("ds.productIntId", "=", "p.id")
        .as("dataStreamCount"),
    )
    .where("p.tenantId", "=", tenantId);
}

type Counts = "deviceCount" | "dataPointCount" | "dataStreamCount";
const withNumbers = (p: Omit<Product, Counts> & Record<Counts, number | string | null>): Product => ({
  ...p,
  deviceCount: Number(p.deviceCount ?? 0),
  dataPointCount: Number(p.dataPointCount ?? 0),
  dataStreamCount: Number(p.dataStreamCount ?? 0),
});

/** Creates a product with a fresh productID (6 letters/digits, unique in the tenant). */
export async function createProduct(
  db: Kysely<Database>,
  caller: Caller,
  input: ProductInput,
  now = Date.now(),
): Promise<Product> {
  for (let attempt = 0; ; attempt++) {
    try {
      const row = await db
        .insertInto("products")
        .values({
          tenantId: caller.tenantId,
          userIntId: caller.userIntId,
          productId: randomCode(6),
          productName: input.productName,
          description: input.description ?? null,
          cloudProtocol: input.cloudProtocol,
          createAt: now,
          updateAt: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { ...row, deviceCount: 0, dataPointCount: 0, dataStreamCount: 0, createUser: caller.username };
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= 5) throw err;
    }
  }
}

/** Lists the caller's products, newest first, optionally filtered by name. */
export async function listProducts(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: { productNameLike?: string | undefined } = {},
): Promise<ListResult<Product>> {
  let q = selectProducts(db, caller.tenantId);
  if (filter.productNameLike) q = q.where(ilike("p.productName", filter.productNameLike));
  const result = await paginate(q, page, "p.id", ["productName", "updateAt"]);
  return { ...result, items: result.items.map(withNumbers) };
}

/** One product of the caller's tenant; DATA_NOT_FOUND otherwise (also for other tenants' ids). */
export async function getProduct(db: Kysely<Database>, caller: Caller, id: number): Promise<Product> {
  const row = await selectProducts(db, caller.tenantId).where("p.id", "=", id).executeTakeFirst();
  if (!row) throw fail.notFound("product");
  return withNumbers(row);
}

/** Looks a product up by its string productID within the caller's tenant. */
export async function getProductByProductId(
  db: Kysely<Database>,
  caller: Caller,
  productId: string,
): Promise<Product | undefined> {
  const row = await selectProducts(db, caller.tenantId).where("p.productId", "=", productId).executeTakeFirst();
  return row && withNumbers(row);
}

/** Fields an edit may change. cloudProtocol is fixed at creation (its devices speak it): another is FORM_INVALID. */
export interface ProductEdit {
  productName?: string | undefined;
  description?: string | null | undefined;
  cloudProtocol?: number | undefined;
}

/** Edits a product of the caller's tenant and sets updateAt. */
export async function updateProduct(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  edit: ProductEdit,
  now = Date.now(),
): Promise<Product> {
  const product = await getProduct(db, caller, id);
  if (edit.cloudProtocol !== undefined && edit.cloudProtocol !== product.cloudProtocol)
    throw fail.form({ cloudProtocol: "cannot be changed" });
  const set = {
    ...(edit.productName !== undefined ? { productName: edit.productName } : {}),
    ...(edit.description !== undefined ? { description: edit.description } : {}),
    updateAt: now,
  };
  await db.updateTable("products").set(set).where("tenantId", "=", caller.tenantId).where("id", "=", id).execute();
  return getProduct(db, caller, id);
}

/**
 * Deletes products of the caller's tenant with their data model (data points,
 * streams, metrics, resources, app templates); ids of other tenants or unknown
 * ones are ignored. A product that still has devices or groups is not deleted:
 * REFERENCED_ERROR names the kind.
 */
export async function deleteProducts(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<void> {
  await deleteUnreferenced(db, caller, ids, {
    table: "products",
    referencedBy: [
      heldBy("device", "devices", "productIntId", "the product still has devices"),
      heldBy("group", "groups", "productIntId", "the product still has groups"),
    ],
    // The product's own data model goes with it.
    cascade: async (tx, mine) => {
      const streams = tx.selectFrom("dataStreams").select("id").where("productIntId", "in", mine);
      await tx.deleteFrom("dataStreamPoints").where("dataStreamIntId", "in", streams).execute();
      for (const table of ["dataStreams", "metrics", "productResources", "appTemplates", "dataPoints"] as const) {
        await tx.deleteFrom(table).where("productIntId", "in", mine).execute();
      }
    },
  });
}

/** Device ids per product (Form 2 records list them), for the given products of the tenant. */
export async function deviceIdsByProduct(
  db: Kysely<Database>,
  tenantId: string,
  productIntIds: number[],
): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(productIntIds.map((id) => [id, []]));
  if (productIntIds.length === 0) return out;
  const rows = await db
    .selectFrom("devices")
    .select(["id", "productIntId"])
    .where("tenantId", "=", tenantId)
    .where("productIntId", "in", productIntIds)
    .orderBy("id")
    .execute();
  for (const r of rows) out.get(r.productIntId)?.push(r.id);
  return out;
}
