import { z } from "zod";
import {
  createProduct,
  deleteProducts,
  deviceIdsByProduct,
  getProduct,
  listProducts,
  updateProduct,
  type Product,
} from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { product } from "../forms/products.js";
import { codeField, idParam, idsFrom, idsQuery, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import type { View } from "../view.js";

const name = z.string().trim().min(1, "required").max(50, "at most 50 characters");
const description = z.string().max(300, "at most 300 characters").nullish();

const createBody = (form: "1" | "2") =>
  form === "1"
    ? z.object({ productName: name, description, cloudProtocol: codeField([1, 2, 3, 4, 5, 6, 7]) })
    : z
        .object({ productName: name, description: z.string().min(1, "required").max(300, "at most 300 characters") })
        .transform((b) => ({ ...b, cloudProtocol: 1 }));

/** Edits carry the whole record; read-only fields (id, counts, labels, cloudProtocol) are accepted and ignored. */
const editBody = z.object({ productName: name.optional(), description });

/** Products: list, detail, create, edit, delete. cloudProtocol is fixed at creation. */
export function productRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  /** Form 2 records list their devices' ids. */
  const withDevices = async (items: Product[], tenantId: string, view: View) => {
    if (view.form === "1") return items;
    const ids = await deviceIdsByProduct(
      db,
      tenantId,
      items.map((p) => p.id),
    );
    return items.map((p) => ({ ...p, deviceIds: ids.get(p.id) ?? [] }));
  };
  return new ApiRouter(docs, "Products")
    .get(
      "/products",
      { summary: "List products", query: listQuery({ productName_like: z.string().optional() }) },
      async (c, { query }) => {
        const caller = c.get("caller");
        const r = await listProducts(db, caller, pageFrom(query), { productNameLike: query.productName_like });
        const items = await withDevices(r.items, caller.tenantId, c.get("view"));
        return list({ ...r, items }, (p) => product(p, "list", c.get("view")));
      },
    )
    .get("/products/:id", { summary: "Product detail" }, async (c) => {
      const p = await getProduct(db, c.get("caller"), idParam(c));
      const [full] = await withDevices([p], p.tenantId, c.get("view"));
      return product(full!, "detail", c.get("view"));
    })
    .post("/products", { summary: "Create a product", body: createBody(deps.form) }, async (c, { body }) =>
      product(await createProduct(db, c.get("caller"), body), "write", c.get("view")),
    )
    .put("/products/:id", { summary: "Edit a product", body: editBody }, async (c, { body }) =>
      product(await updateProduct(db, c.get("caller"), idParam(c), body), "write", c.get("view")),
    )
    .delete(
      "/products",
      { summary: "Delete products (REFERENCED_ERROR while they have devices or groups)", query: idsQuery },
      async (c, { query }) => {
        await deleteProducts(db, c.get("caller"), idsFrom(query));
      },
    ).app;
}
