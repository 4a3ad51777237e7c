import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { selectAuthDevice } from "./auth-device-row.js";
import { denier } from "./auth-refusal.js";
import type { AuthRequest } from "./device-credentials.js";

/** proto Protocol.LWM2M: its PSK identity is the IMEI. */
const LWM2M = 3;

/**
 * Writes the connect log (status 2) of an authentication the adapter refused by itself: a DTLS handshake whose
 * client Finished no key of the device verifies (a wrong key), after the registry had answered the identity. The log
 * goes under the tenant of the device the credentials name, bounded per address as every DTLS failure (denier).
 */
export async function recordHandshakeFailure(
  db: Kysely<Database>,
  req: AuthRequest,
  reason: string,
  now = Date.now(),
): Promise<void> {
  const c = req.credentials;
  if (c.kind === "psk") {
    const column = req.protocol === LWM2M ? "d.imei" : "d.deviceUsername";
    const row = c.identity ? await selectAuthDevice(db).where(column, "=", c.identity).executeTakeFirst() : undefined;
    await denier(db, req, row, null, now)("BAD_CREDENTIALS", reason);
    return;
  }
  if (c.kind === "certificate") {
    const cert = await db.selectFrom("certs").select("tenantId").where("cn", "=", c.commonName).executeTakeFirst();
    await denier(db, req, undefined, cert?.tenantId ?? null, now)("BAD_CREDENTIALS", reason);
    return;
  }
  await denier(db, req, undefined, null, now)("BAD_CREDENTIALS", reason);
}
