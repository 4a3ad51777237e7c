import type { Kysely, Selectable } from "kysely";
import type { Database, TenantsTable } from "../store/schema.js";
import { reusableInQuery, reusableQuery } from "../store/reusable-query.js";
import { queryIn } from "../store/query-in.js";
import { fail, isUniqueViolation } from "../errors.js";
import { randomCode } from "./ids.js";
import { ilike, paginate, type ListResult, type Page } from "./list.js";

/** A tenant: the unit every record and query is scoped to. */
export type Tenant = Selectable<TenantsTable>;

/**
 * A tenant's resource limits (docs/quotas.md); 0 means unlimited. Only the service administrator sets them.
 * `maxUplinkRate` is messages per second per adapter process.
 */
export interface TenantLimits {
  maxDevices: number;
  maxConnections: number;
  maxUplinkRate: number;
}

/** What the service administrator may set on a tenant; omitted fields keep their value. */
export type TenantEdit = { [K in keyof TenantLimits]?: number | undefined } & { tenantName?: string | undefined };

/**
 * Creates a tenant with a fresh tenantID (10 letters/digits, unique across
 * the service), unlimited unless `input` sets limits. Only the service administrator may call this; the API checks.
 */
export async function createTenant(
  db: Kysely<Database>,
  input: { tenantName: string } & Partial<TenantLimits>,
  now = Date.now(),
): Promise<Tenant> {
  const limits = {
    maxDevices: input.maxDevices ?? 0,
    maxConnections: input.maxConnections ?? 0,
    maxUplinkRate: input.maxUplinkRate ?? 0,
  };
  for (let attempt = 0; ; attempt++) {
    try {
      return await db
        .insertInto("tenants")
        .values({
          tenantId: randomCode(10),
          tenantName: input.tenantName,
          enable: 1,
          createAt: now,
          updateAt: null,
          ...limits,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= 5) throw err;
    }
  }
}

/** Lists every tenant of the service, newest first, optionally filtered by name. */
export async function listTenants(
  db: Kysely<Database>,
  page: Page,
  filter: { tenantNameLike?: string | undefined } = {},
): Promise<ListResult<Tenant>> {
  let q = db.selectFrom("tenants").selectAll();
  if (filter.tenantNameLike) q = q.where(ilike("tenantName", filter.tenantNameLike));
  return paginate(q, page, "id", ["tenantName", "updateAt"]);
}

/** The tenant with this tenantID, or undefined. */
export async function findTenant(db: Kysely<Database>, tenantId: string): Promise<Tenant | undefined> {
  return db.selectFrom("tenants").selectAll().where("tenantId", "=", tenantId).executeTakeFirst();
}

/** The tenant with this row id, or DATA_NOT_FOUND. */
export async function getTenant(db: Kysely<Database>, id: number): Promise<Tenant> {
  const t = await db.selectFrom("tenants").selectAll().where("id", "=", id).executeTakeFirst();
  if (!t) throw fail.notFound("id");
  return t;
}

/**
 * Edits a tenant (service administrator): its name and resource limits. Lowering a limit below
 * what the tenant already uses removes nothing: it only refuses what would go further over it.
 */
export async function updateTenant(db: Kysely<Database>, id: number, edit: TenantEdit, now = Date.now()) {
  const set = Object.fromEntries(Object.entries(edit).filter(([, v]) => v !== undefined));
  const t = await db
    .updateTable("tenants")
    .set({ ...set, updateAt: now })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
  if (!t) throw fail.notFound("id");
  return t;
}

/** A tenant with no limits, or one not found. */
const NO_LIMITS: TenantLimits = { maxDevices: 0, maxConnections: 0, maxUplinkRate: 0 };

/** The tenant's limits (all 0, unlimited, for an unknown tenant). */
export async function tenantLimits(db: Kysely<Database>, tenantId: string): Promise<TenantLimits> {
  const [t] = await limitsOfTenant(db, tenantId);
  return t ?? NO_LIMITS;
}

/** The limits of each of several tenants, read together (AuthenticateBatch); a tenant not found has none. */
export async function tenantLimitsOf(
  db: Kysely<Database>,
  tenantIds: readonly string[],
): Promise<Map<string, TenantLimits>> {
  const limits = new Map<string, TenantLimits>(tenantIds.map((id) => [id, NO_LIMITS]));
  const rows = await queryIn(tenantIds, (ids) => limitsOfTenants(db, ids));
  for (const { tenantId, ...l } of rows) limits.set(tenantId, l);
  return limits;
}

/** Read at every AuthenticateBatch, so compiled once per IN list length (see reusableInQuery). */
const limitsOfTenants = reusableInQuery((db: Kysely<Database>, ids: string[]) =>
  db
    .selectFrom("tenants")
    .select(["tenantId", "maxDevices", "maxConnections", "maxUplinkRate"])
    .where("tenantId", "in", ids),
);

/** Read at every device connect, so compiled once (see reusableQuery). */
const limitsOfTenant = reusableQuery((db: Kysely<Database>, tenantId: string) =>
  db.selectFrom("tenants").select(["maxDevices", "maxConnections", "maxUplinkRate"]).where("tenantId", "=", tenantId),
);
