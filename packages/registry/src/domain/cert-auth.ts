import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { admitDevice } from "./admit-device.js";
import { selectAuthDevice } from "./auth-device-row.js";
import type { AuthOutcome } from "./auth-outcome.js";
import { denier } from "./auth-refusal.js";
import type { AuthRequest, DeviceCredentials } from "./device-credentials.js";

/** SHA-256 fingerprints compare as lower-case hex without separators. */
const normalFingerprint = (f: string) => f.replace(/:/g, "").toLowerCase();

/** The stamp of a session admitted by the certificate record `certIntId` (see tokenStamp). */
export const certificateStamp = (certIntId: number) => `c:${certIntId}`;

/**
 * authType 2 (mutual TLS; the adapter has verified the chain): the
 * certificate with this CN and fingerprint must exist and be enabled, and
 * the client id must be the deviceID of an authType 2 device of the
 * certificate's tenant that is bound to it.
 */
export async function certAuth(
  db: Kysely<Database>,
  req: AuthRequest,
  c: Extract<DeviceCredentials, { kind: "certificate" }>,
  now: number,
): Promise<AuthOutcome> {
  const cert = await db
    .selectFrom("certs")
    .select(["id", "tenantId", "enable"])
    .where("cn", "=", c.commonName)
    .where("fingerprint", "=", normalFingerprint(c.fingerprint))
    .executeTakeFirst();
  const row =
    cert && c.clientId
      ? await selectAuthDevice(db)
          .where("d.tenantId", "=", cert.tenantId)
          .where("d.deviceId", "=", c.clientId)
          .executeTakeFirst()
      : undefined;
  const deny = denier(db, req, row, cert?.tenantId ?? null, now);
  if (!cert) return deny("BAD_CREDENTIALS", "unknown certificate");
  if (!row) return deny("BAD_CREDENTIALS", "client id is not a deviceID of the certificate's tenant");
  if (cert.enable !== 1) return deny("NOT_ALLOWED", "certificate disabled");
  if (row.authType !== 2) return deny("NOT_ALLOWED", "device authenticates with a token");
  const bound = await db
    .selectFrom("deviceCerts")
    .select("certIntId")
    .where("deviceIntId", "=", row.id)
    .where("certIntId", "=", cert.id)
    .executeTakeFirst();
  if (!bound) return deny("NOT_ALLOWED", "device is not bound to this certificate");
  return admitDevice(db, row, req.protocol, deny, certificateStamp(cert.id));
}
