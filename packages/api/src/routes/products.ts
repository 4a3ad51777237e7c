import { Hono } from "hono";
import { z } from "zod";
import { createProduct, getProduct, listProducts } from "@iot/registry";
import type { AppDeps, Env } from "../deps.js";
import * as form1 from "../forms/form1.js";
import { bodyOf, codeField, idParam, pageOf } from "../params.js";

const createBody = z.object({
  productName: z.string().trim().min(1, "required").max(50),
  description: z.string().max(300).nullish(),
  cloudProtocol: codeField([1, 2, 3, 4, 5, 6, 7]),
});

/** Products: list, detail, create (cloudProtocol is fixed at creation). */
export function productRoutes(deps: AppDeps) {
  const db = deps.store.db;
  return new Hono<Env>()
    .get("/products", async (c) => {
      const r = await listProducts(db, c.get("caller"), pageOf(c), { productNameLike: c.req.query("productName_like") });
      return c.json(form1.list(r, (p) => form1.product(p, "list")));
    })
    .get("/products/:id", async (c) => c.json(form1.product(await getProduct(db, c.get("caller"), idParam(c)), "detail")))
    .post("/products", async (c) => {
      const body = await bodyOf(c, createBody);
      return c.json(form1.product(await createProduct(db, c.get("caller"), body), "create"), 201);
    });
}
