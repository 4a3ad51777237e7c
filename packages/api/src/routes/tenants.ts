import { z } from "zod";
import { createTenant, getTenant, listTenants, updateTenant } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { tenant } from "../forms/tenants.js";
import { requireServiceAdmin } from "../middleware/roles.js";
import { idParam, intField, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import { listOf } from "../forms/common.js";
import { tenantRecord } from "../forms/tenants.js";

const tenantName = z.string().trim().min(1, "required").max(50, "at most 50 characters");

/** A resource limit: a whole number from 0 to `max`; 0 or null means unlimited. */
const limit = (max: number, what: string) =>
  intField
    .refine((v) => v >= 0 && v <= max, { message: `must be 0 (unlimited) to ${max}` })
    .nullish()
    .transform((v) => (v === null ? 0 : v))
    .describe(`${what}; 0 or null: unlimited (the default), at most ${max}`);

/** The limits the service administrator sets on a tenant (docs/quotas.md). */
const limits = {
  maxDevices: limit(100_000_000, "Most devices (gateways included) the tenant may hold"),
  maxConnections: limit(100_000_000, "Most devices of the tenant connected at once"),
  maxUplinkRate: limit(1_000_000, "Uplink messages per second of the tenant, per adapter process"),
};

const createBody = z.strictObject({ tenantName, ...limits });
/** Edits may carry the whole record; read-only fields (tenantID, createAt, …) are accepted and ignored. */
const editBody = z.looseObject({ tenantName: tenantName.optional(), ...limits });

/**
 * Tenants: only the service administrator may list, read, create or edit them (anyone else: 403), including their
 * resource limits (maxDevices, maxConnections, maxUplinkRate; 0 = unlimited).
 */
export function tenantRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  return new ApiRouter(docs, "Tenants")
    .get(
      "/tenants",
      {
        summary: "List tenants (service administrator)",
        response: listOf(tenantRecord),
        query: listQuery({ tenantName_like: z.string().optional() }),
      },
      async (c, { query }) => {
        requireServiceAdmin(c);
        return list(await listTenants(db, pageFrom(query), { tenantNameLike: query.tenantName_like }), tenant);
      },
    )
    .post(
      "/tenants",
      {
        summary:
          "Create a tenant (service administrator), optionally with resource limits (0 or omitted: unlimited); " +
          "add its users with POST /users and its tenantID",
        body: createBody,
        response: tenantRecord,
      },
      async (c, { body }) => {
        requireServiceAdmin(c);
        return tenant(await createTenant(db, body));
      },
    )
    .get(
      "/tenants/:id",
      { summary: "Tenant detail with its resource limits (service administrator)", response: tenantRecord },
      async (c) => {
        requireServiceAdmin(c);
        return tenant(await getTenant(db, idParam(c)));
      },
    )
    .put(
      "/tenants/:id",
      {
        summary:
          "Edit a tenant (service administrator): its name and resource limits maxDevices, maxConnections, " +
          "maxUplinkRate (0 or null: unlimited); a new uplink rate reaches the adapters at once",
        body: editBody,
        response: tenantRecord,
      },
      async (c, { body }) => {
        requireServiceAdmin(c);
        const id = idParam(c);
        const before = await getTenant(db, id);
        const after = await updateTenant(db, id, {
          tenantName: body.tenantName,
          maxDevices: body.maxDevices,
          maxConnections: body.maxConnections,
          maxUplinkRate: body.maxUplinkRate,
        });
        if (after.maxUplinkRate !== before.maxUplinkRate)
          deps.live.tenantLimitsChanged(after.tenantId, after.maxUplinkRate);
        return tenant(after);
      },
    ).app;
}
