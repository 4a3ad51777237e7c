import type { Transaction } from "kysely";
import type { Database } from "../store/schema.js";
import { fail, isUniqueViolation, RegistryError } from "../errors.js";
import { assertCertsOfTenant } from "./certs.js";
import type { DeviceDraft } from "./device-rules.js";

/** Which unique key a failed write broke, for a DATA_EXISTED naming the field. */
const existedField = (err: unknown) => {
  const message = String((err as Error).message);
  return /imei/i.test(message) ? "IMEI" : /username/i.test(message) ? "deviceUsername" : "deviceID";
};

/**
 * Runs a device write, turning unique-key violations into DATA_EXISTED: a concurrent writer may take a key between
 * the checks and the write, and the caller must hear which field, as from the checks.
 */
export async function deviceWrite<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof RegistryError) throw err;
    if (isUniqueViolation(err)) throw fail.exists(existedField(err));
    throw err;
  }
}

/** The rule checker's view of a device row plus changes, shared by create and edit so both check alike. */
export function draftOf(
  tenantId: string,
  protocol: number,
  v: Omit<DeviceDraft, "tenantId" | "protocol">,
): DeviceDraft {
  return { ...v, tenantId, protocol };
}

/**
 * Replaces a device's certificate bindings with `certs` (undefined: left as they are). Only the device's own tenant's
 * certificates may be bound (FORM_INVALID naming `certs`).
 */
export async function replaceCerts(
  tx: Transaction<Database>,
  deviceIntId: number,
  certs: number[] | undefined,
  now: number,
): Promise<void> {
  if (certs === undefined) return;
  const { tenantId } = await tx
    .selectFrom("devices")
    .select("tenantId")
    .where("id", "=", deviceIntId)
    .executeTakeFirstOrThrow();
  await assertCertsOfTenant(tx, tenantId, certs);
  await tx.deleteFrom("deviceCerts").where("deviceIntId", "=", deviceIntId).execute();
  const unique = [...new Set(certs)];
  if (unique.length)
    await tx
      .insertInto("deviceCerts")
      .values(unique.map((certIntId) => ({ deviceIntId, certIntId, createAt: now })))
      .execute();
}
