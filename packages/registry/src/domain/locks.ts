import type { Transaction } from "kysely";
import type { Database } from "../store/schema.js";

/**
 * Serializes writes that check-then-write within one tenant (modBusIndex
 * uniqueness, references, memberships): a no-op update takes the tenant
 * row's lock on PostgreSQL and the write lock on SQLite, with no
 * engine-specific SQL. Call it first in the transaction.
 */
export async function lockTenant(tx: Transaction<Database>, tenantId: string): Promise<void> {
  await tx
    .updateTable("tenants")
    .set((eb) => ({ tenantId: eb.ref("tenantId") }))
    .where("tenantId", "=", tenantId)
    .execute();
}
