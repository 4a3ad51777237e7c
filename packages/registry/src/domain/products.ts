import { sql, type Kysely } from "kysely";
import type { Database, ProductsTable } from "../store/schema.js";
import type { Selectable } from "kysely";
import { fail, isUniqueViolation } from "../errors.js";
import type { Caller } from "./caller.js";
import { randomCode } from "./ids.js";
import { ilike, paginate, type ListResult, type Page } from "./list.js";

/** A product row with the number of devices made from it. */
export type Product = Selectable<ProductsTable> & { deviceCount: number };

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
    .selectAll("p")
    .select((eb) =>
      eb.selectFrom("devices as d").select(sql<number>`count(*)`.as("n")).whereRef("d.productIntId", "=", "p.id").as("deviceCount"),
    )
    .where("p.tenantId", "=", tenantId);
}

const withNumbers = (p: Omit<Product, "deviceCount"> & { deviceCount: number | string | null }): Product => ({
  ...p,
  deviceCount: Number(p.deviceCount ?? 0),
});

/** Creates a product with a fresh productID (6 letters/digits, unique in the tenant). */
export async function createProduct(db: Kysely<Database>, caller: Caller, input: ProductInput, now = Date.now()): Promise<Product> {
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
      return { ...row, deviceCount: 0 };
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
  const result = await paginate(q, page, "p.id");
  return { ...result, items: result.items.map(withNumbers) };
}

/** One product of the caller's tenant; DATA_NOT_FOUND otherwise (also for other tenants' ids). */
export async function getProduct(db: Kysely<Database>, caller: Caller, id: number): Promise<Product> {
  const row = await selectProducts(db, caller.tenantId).where("p.id", "=", id).executeTakeFirst();
  if (!row) throw fail.notFound("product");
  return withNumbers(row);
}

/** Looks a product up by its string productID within the caller's tenant. */
export async function getProductByProductId(db: Kysely<Database>, caller: Caller, productId: string): Promise<Product | undefined> {
  const row = await selectProducts(db, caller.tenantId).where("p.productId", "=", productId).executeTakeFirst();
  return row && withNumbers(row);
}
