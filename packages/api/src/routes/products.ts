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
import { listOf } from "../forms/common.js";
import { productRecords } from "../forms/products.js";
import { withDeviceIds } from "./with-device-ids.js";

const name = z.string().trim().min(1, "required").max(50, "at most 50 characters");
/** Form 1: optional; Form 2: required on create and, when sent on edit, not empty. */
const description = (form: "1" | "2") =>
  form === "1"
    ? z.string().max(300, "at most 300 characters").nullish()
    : z.string().min(1, "required").max(300, "at most 300 characters");

/**
 * What a create takes in each form. Form 2 records have no cloudProtocol: its products are MQTT (1), which a client
 * written for both forms may still send.
 */
const form1Fields = {
  productName: name,
  description: description("1"),
  cloudProtocol: codeField([1, 2, 3, 4, 5, 6, 7]),
};
const form2Fields = { productName: name, description: description("2"), cloudProtocol: codeField([1]).optional() };

const createBody = (form: "1" | "2") =>
  form === "1"
    ? z.strictObject(form1Fields)
    : z.strictObject(form2Fields).transform((b) => ({ ...b, cloudProtocol: 1 }));

/**
 * Edits carry the whole record: every member a create takes is validated as the create validates it (cloudProtocol,
 * fixed at creation, is compared by the registry), the record's read-only members (id, counts, labels) are ignored.
 */
const editBody = (form: "1" | "2") => (form === "1" ? z.object(form1Fields) : z.object(form2Fields)).partial();

/** Products: list, detail, create, edit, delete. cloudProtocol is fixed at creation. */
export function productRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  const records = productRecords[deps.form];
  /** Form 2 records list their devices' ids. */
  const withDevices = async (items: Product[], tenantId: string, view: View) =>
    view.form === "1" ? items : withDeviceIds(items, (ids) => deviceIdsByProduct(db, tenantId, ids));
  return new ApiRouter(docs, "Products")
    .get(
      "/products",
      {
        summary: "List products",
        response: listOf(records.list),
        query: listQuery({ productName_like: z.string().optional() }),
      },
      async (c, { query }) => {
        const caller = c.get("caller");
        const r = await listProducts(db, caller, pageFrom(query), { productNameLike: query.productName_like });
        const items = await withDevices(r.items, caller.tenantId, c.get("view"));
        return list({ ...r, items }, (p) => product(p, "list", c.get("view")));
      },
    )
    .get("/products/:id", { summary: "Product detail", response: records.detail }, async (c) => {
      const p = await getProduct(db, c.get("caller"), idParam(c));
      const [full] = await withDevices([p], p.tenantId, c.get("view"));
      return product(full!, "detail", c.get("view"));
    })
    .post(
      "/products",
      { summary: "Create a product", body: createBody(deps.form), response: records.write },
      async (c, { body }) => product(await createProduct(db, c.get("caller"), body), "write", c.get("view")),
    )
    .put(
      "/products/:id",
      { summary: "Edit a product", body: editBody(deps.form), response: records.write },
      async (c, { body }) =>
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
