import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { admitDevice } from "./admit-device.js";
import { selectAuthDevice } from "./auth-device-row.js";
import type { AuthOutcome } from "./auth-outcome.js";
import { denier } from "./auth-refusal.js";
import { pskKeysOf } from "./psk-auth.js";
import type { AuthRequest, DeviceCredentials } from "./device-credentials.js";

/** The stamp of an LwM2M session: the endpoint name (IMEI) it registered with (see tokenStamp). */
export const lwm2mStamp = (endpoint: string) => `l:${endpoint}`;

/**
 * An LwM2M client registering in NoSec mode with its endpoint name, which is the device's IMEI (unique
 * service-wide). The endpoint name is all such a client presents, so only a registered, unblocked device of an LwM2M
 * product is let in (docs/devices/lwm2m.md says what limits the risk); over DTLS the client is a `psk` one.
 */
export async function lwm2mAuth(
  db: Kysely<Database>,
  req: AuthRequest,
  c: Extract<DeviceCredentials, { kind: "lwm2m" }>,
  now: number,
): Promise<AuthOutcome> {
  const row = c.endpoint ? await selectAuthDevice(db).where("d.imei", "=", c.endpoint).executeTakeFirst() : undefined;
  const deny = denier(db, req, row, null, now);
  if (!row) return deny("BAD_CREDENTIALS", "no device has this endpoint name as its IMEI");
  const outcome = await admitDevice(db, row, req.protocol, deny, lwm2mStamp(c.endpoint));
  // A bootstrap that writes PSK credentials into the client: the key is the device's token.
  const psk = c.bootstrap && outcome.ok && outcome.lwm2mBootstrap?.securityMode === "psk" && row.authType === 1;
  return psk ? { ...outcome, pskKeys: pskKeysOf(row.token) } : outcome;
}
