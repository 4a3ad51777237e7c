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

/** proto Protocol.COAP and LWM2M: the adapters that take certificates in a DTLS handshake. */
const COAP = 2;
const LWM2M = 3;

/**
 * authType 2 (mutual TLS or DTLS; the adapter has verified the chain): the
 * certificate with this CN and fingerprint must exist and be enabled, and
 * the device must be an authType 2 device of the certificate's tenant that is
 * bound to it. The device is the one the client id names: MQTT's deviceID, an
 * LwM2M Register's endpoint name (the IMEI). A DTLS handshake names no device
 * (empty client id, CoAP and LwM2M only): the device is then the one bound to
 * the certificate, and a certificate bound to several cannot be told apart.
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
  const dtls = req.protocol === COAP || req.protocol === LWM2M;
  const byCert = cert && !c.clientId && dtls;
  const rows = !cert
    ? []
    : byCert
      ? await selectAuthDevice(db)
          .innerJoin("deviceCerts as dc", "dc.deviceIntId", "d.id")
          .where("dc.certIntId", "=", cert.id)
          .where("d.tenantId", "=", cert.tenantId)
          .limit(2)
          .execute()
      : c.clientId
        ? await selectAuthDevice(db)
            .where("d.tenantId", "=", cert.tenantId)
            .where(req.protocol === LWM2M ? "d.imei" : "d.deviceId", "=", c.clientId)
            .limit(1)
            .execute()
        : [];
  const row = rows.length === 1 ? rows[0] : undefined;
  const deny = denier(db, req, row, cert?.tenantId ?? null, now);
  if (!cert) return deny("BAD_CREDENTIALS", "unknown certificate");
  if (byCert && rows.length > 1) return deny("NOT_ALLOWED", "certificate bound to several devices");
  if (!row)
    return deny(
      "BAD_CREDENTIALS",
      byCert
        ? "certificate bound to no device"
        : req.protocol === LWM2M
          ? "endpoint is not an IMEI of the certificate's tenant"
          : "client id is not a deviceID of the certificate's tenant",
    );
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
