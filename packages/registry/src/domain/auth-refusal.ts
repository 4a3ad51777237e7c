import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { AuthDeviceRow } from "./auth-device-row.js";
import type { AuthOutcome } from "./auth-outcome.js";
import { recordAuthFailure } from "./connectivity.js";
import type { AuthRequest, DeviceCredentials } from "./device-credentials.js";
import { dtlsFailureLogs } from "./failure-log-gate.js";

/** proto Protocol.COAP and LWM2M with a DTLS handshake's credentials: failures whose logs are bounded per address. */
const fromDtls = (req: AuthRequest) =>
  (req.protocol === 2 || req.protocol === 3) &&
  (req.credentials.kind === "psk" || req.credentials.kind === "certificate");

/** Why a check refuses a device: the answer and the reason for its connect log. */
export type Refusal = readonly ["BAD_CREDENTIALS" | "BLOCKED" | "NOT_ALLOWED", string];

/** Refuses a connect, writing its connect log first (see denier). */
export type Deny = (result: Refusal[0], reason: string) => Promise<AuthOutcome>;

/** What the credentials claim the device is called, for the connect log of a refusal. */
function claimedId(c: DeviceCredentials): string {
  switch (c.kind) {
    case "modbus":
      return `${c.gatewayDeviceId}!${c.index}`;
    case "lwm2m":
      return c.endpoint;
    case "lora":
      return c.gatewayEui || c.devEui || c.devAddr;
    case "psk":
      return "";
    default:
      return c.clientId;
  }
}

/**
 * A refusal recorder: writes a connect log with status 2 under the device's
 * tenant (or `tenantId` when no device was found, null when none is known),
 * so a tenant sees the failed connects of its devices. Failures of DTLS handshakes write at most a few a minute
 * per client address (see FailureLogGate).
 */
export function denier(
  db: Kysely<Database>,
  req: AuthRequest,
  row: AuthDeviceRow | undefined,
  tenantId: string | null,
  now: number,
): Deny {
  return async (result, reason) => {
    const c = req.credentials;
    const clientId = claimedId(c) || null;
    if (fromDtls(req) && !dtlsFailureLogs.allow(req.clientIp, now)) return { ok: false, result, message: reason };
    await recordAuthFailure(
      db,
      {
        tenantId: row?.tenantId ?? tenantId,
        deviceIntId: row?.id ?? null,
        deviceId: row?.deviceId ?? clientId,
        deviceName: row?.deviceName ?? null,
        ip: req.clientIp,
        reason,
      },
      now,
    );
    return { ok: false, result, message: reason };
  };
}
