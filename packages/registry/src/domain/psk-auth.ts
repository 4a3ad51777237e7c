import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { admitDevice } from "./admit-device.js";
import { selectAuthDevice } from "./auth-device-row.js";
import type { AuthOutcome } from "./auth-outcome.js";
import { denier } from "./auth-refusal.js";
import type { AuthRequest, DeviceCredentials } from "./device-credentials.js";
import { tokenStamp } from "./token-auth.js";

/** proto Protocol.COAP and LWM2M: the adapters that terminate DTLS with pre-shared keys. */
const COAP = 2;
const LWM2M = 3;

/**
 * A token's candidate DTLS keys: its text as UTF-8 bytes (what libcoap's `-k` sends) and, for a token of an even
 * number of hex digits, the bytes the hex spells (what tinydtls-based and LwM2M stacks take).
 */
export function pskKeysOf(token: string): Buffer[] {
  const keys = [Buffer.from(token, "utf8")];
  if (token.length > 0 && token.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(token)) keys.push(Buffer.from(token, "hex"));
  return keys;
}

/**
 * A DTLS PSK identity: for the CoAP adapter the deviceUsername of an authType 1 device, for the LwM2M adapter the
 * device's IMEI (the endpoint client name, which the adapter strips of `urn:imei:`); both unique service-wide. The
 * registry cannot check the key (the handshake does, in the adapter): it answers the device's session with its
 * token as candidate keys, and only to those two adapters. The stamp is the token credentials' one, so a token
 * changed while the registry was away revokes the session as it does a token session's.
 */
export async function pskAuth(
  db: Kysely<Database>,
  req: AuthRequest,
  c: Extract<DeviceCredentials, { kind: "psk" }>,
  now: number,
): Promise<AuthOutcome> {
  const column = req.protocol === LWM2M ? "d.imei" : "d.deviceUsername";
  const row = c.identity
    ? await selectAuthDevice(db).select("d.deviceUsername").where(column, "=", c.identity).executeTakeFirst()
    : undefined;
  const deny = denier(db, req, row, null, now);
  if (!row) return deny("BAD_CREDENTIALS", "unknown PSK identity");
  if (req.protocol !== COAP && req.protocol !== LWM2M)
    return deny("NOT_ALLOWED", "pre-shared keys are for CoAP and LwM2M over DTLS");
  if (row.authType !== 1) return deny("NOT_ALLOWED", "device authenticates with a certificate");
  const outcome = await admitDevice(db, row, req.protocol, deny, tokenStamp(row.deviceUsername, row.token));
  return outcome.ok ? { ...outcome, pskKeys: pskKeysOf(row.token) } : outcome;
}
