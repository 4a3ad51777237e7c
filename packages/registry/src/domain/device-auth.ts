import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { AuthOutcome } from "./auth-outcome.js";
import { certAuth } from "./cert-auth.js";
import type { AuthRequest } from "./device-credentials.js";
import { loraAuth } from "./lora-auth.js";
import { lwm2mAuth } from "./lwm2m-auth.js";
import { modbusAuth } from "./modbus-auth.js";
import { pskAuth } from "./psk-auth.js";
import { tokenAuth } from "./token-auth.js";

/**
 * Checks a device's credentials for an adapter of `protocol`, by the check of their kind. Every failure
 * is written as a connect log with status 2 under the tenant of the device the
 * credentials named (no tenant when they named none).
 */
export async function authenticateDevice(
  db: Kysely<Database>,
  req: AuthRequest,
  now = Date.now(),
): Promise<AuthOutcome> {
  const c = req.credentials;
  switch (c.kind) {
    case "token":
      return tokenAuth(db, req, c, now);
    case "certificate":
      return certAuth(db, req, c, now);
    case "modbus":
      return modbusAuth(db, req, c, now);
    case "lwm2m":
      return lwm2mAuth(db, req, c, now);
    case "lora":
      return loraAuth(db, req, c, now);
    case "psk":
      return pskAuth(db, req, c, now);
  }
}
