import { z } from "zod";
import { createTenant, listTenants } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { tenant } from "../forms/tenants.js";
import { requireServiceAdmin } from "../middleware/roles.js";
import { listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";

const createBody = z.object({ tenantName: z.string().trim().min(1, "required").max(50, "at most 50 characters") });

/** Tenants: only the service administrator may list or create them (anyone else: 403). */
export function tenantRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  return new ApiRouter(docs, "Tenants")
    .get(
      "/tenants",
      { summary: "List tenants (service administrator)", query: listQuery({ tenantName_like: z.string().optional() }) },
      async (c, { query }) => {
        requireServiceAdmin(c);
        return list(await listTenants(db, pageFrom(query), { tenantNameLike: query.tenantName_like }), tenant);
      },
    )
    .post(
      "/tenants",
      {
        summary: "Create a tenant (service administrator); add its users with POST /users and its tenantID",
        body: createBody,
      },
      async (c, { body }) => {
        requireServiceAdmin(c);
        return tenant(await createTenant(db, body));
      },
    ).app;
}
