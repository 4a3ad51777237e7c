import type { AedesOptions, AuthErrorCode, AuthenticateError } from "aedes";
import type { AuthFailureCode, DeviceIdentity } from "@iot/adapter-core";
import type { AdapterContext } from "../context.js";

/** CONNACK return codes (MQTT 3.1.1 table 3.1): 3 server unavailable, 5 not authorized. */
const returnCodes: Record<AuthFailureCode, number> = { BAD_CREDENTIALS: 5, BLOCKED: 5, NOT_ALLOWED: 5, UNAVAILABLE: 3 };

function refusal(code: AuthFailureCode, message: string): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: returnCodes[code] as AuthErrorCode });
}

/**
 * The id aedes keys the connection by. deviceIDs are unique only within a
 * tenant, and aedes closes an existing connection whose client id equals a
 * new one's (MQTT-3.1.4-2). Keyed by the raw client id, a device of tenant B
 * could knock out tenant A's device with the same deviceID. The registry-wide
 * device int id makes takeover happen only between connections of the same
 * device, as MQTT intends.
 */
export function internalClientId(device: DeviceIdentity): string {
  return `${device.tenantId}:${device.deviceIntId}`;
}

/**
 * MQTT-3.1.4 CONNECT authentication: client id = deviceID, username =
 * deviceUsername, password = token, checked by the registry. Refusals answer
 * CONNACK 5, an unreachable registry CONNACK 3 (the device should retry).
 */
export function authenticateHook(ctx: AdapterContext): NonNullable<AedesOptions["authenticate"]> {
  return (client, username, password, done) => {
    const connect = ctx.clients.connectInfo(client) ?? { claimedId: client.id ?? "", keepAlive: 0, clientIp: "" };
    const credentials = {
      kind: "token" as const,
      clientId: connect.claimedId,
      username: username ?? "",
      token: password ? password.toString("utf8") : "",
    };
    ctx.registry.authenticate("mqtt", credentials, connect.clientIp).then(
      (outcome) => {
        if (!outcome.ok) {
          ctx.stats.authFailures++;
          ctx.log.info({ clientId: connect.claimedId, username, ip: connect.clientIp, code: outcome.code, reason: outcome.message }, "connection refused");
          done(refusal(outcome.code, outcome.message), null);
          return;
        }
        ctx.clients.attach(client, outcome.session, connect);
        client.id = internalClientId(outcome.session.device);
        done(null, true);
      },
      (err: unknown) => done(refusal("UNAVAILABLE", `registry error: ${String(err)}`), null),
    );
  };
}
