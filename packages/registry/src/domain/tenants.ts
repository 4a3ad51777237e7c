import type { Kysely, Selectable } from "kysely";
import type { Database, TenantsTable } from "../store/schema.js";
import { isUniqueViolation } from "../errors.js";
import { randomCode } from "./ids.js";
import { ilike, paginate, type ListResult, type Page } from "./list.js";

/** A tenant: the unit every record and query is scoped to. */
export type Tenant = Selectable<TenantsTable>;

/**
 * Creates a tenant with a fresh tenantID (10 letters/digits, unique across
 * the service). Only the service administrator may call this; the API checks.
 */
export async function createTenant(
  db: Kysely<Database>,
  input: { tenantName: string },
  now = Date.now(),
): Promise<Tenant> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db
        .insertInto("tenants")
        .values({ tenantId: randomCode(10), tenantName: input.tenantName, enable: 1, createAt: now, updateAt: null })
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
