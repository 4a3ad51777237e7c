import type { Kysely, Transaction } from "kysely";
import type { Database } from "../store/schema.js";
import { fail, type RegistryError } from "../errors.js";

/**
 * How many more devices the tenant may create under its `maxDevices` limit (Infinity when unlimited, 0 when full).
 * Call it inside the transaction that took `lockTenant`, so two creations cannot both take the last place.
 */
export async function deviceRoom(tx: Transaction<Database> | Kysely<Database>, tenantId: string): Promise<number> {
  const t = await tx.selectFrom("tenants").select("maxDevices").where("tenantId", "=", tenantId).executeTakeFirst();
  const max = t?.maxDevices ?? 0;
  if (max <= 0) return Infinity;
  const { n } = await tx
    .selectFrom("devices")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("tenantId", "=", tenantId)
    .executeTakeFirstOrThrow();
  return Math.max(0, max - Number(n));
}

/** The FORM_INVALID refusal of a device over the tenant's limit (400 on the API, the row's error in an import). */
export async function deviceLimitError(tx: Transaction<Database>, tenantId: string): Promise<RegistryError> {
  const t = await tx.selectFrom("tenants").select("maxDevices").where("tenantId", "=", tenantId).executeTakeFirst();
  return fail.form({ maxDevices: `the tenant's limit of ${t?.maxDevices ?? 0} devices is reached` });
}
