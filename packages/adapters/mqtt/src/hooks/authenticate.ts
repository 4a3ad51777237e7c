import { createHash } from "node:crypto";
import { TLSSocket } from "node:tls";
import type { AedesOptions, AuthenticateError } from "aedes";
import type { AuthFailureCode, DeviceCredentials, DeviceIdentity } from "@iot/adapter-core";
import type { ConnectInfo } from "../client-table.js";
import type { AdapterContext } from "../context.js";

/**
 * CONNACK return codes (MQTT 3.1.1 table 3.1): 3 server unavailable, 5 not authorized. A tenant at its connection
 * limit gets 3 too: MQTT 3.1.1 has no quota code, and "unavailable" tells the device to retry later.
 */
const returnCodes: Record<AuthFailureCode, number> = {
  BAD_CREDENTIALS: 5,
  BLOCKED: 5,
  NOT_ALLOWED: 5,
  UNAVAILABLE: 3,
  QUOTA_EXCEEDED: 3,
};

function refusal(code: AuthFailureCode, message: string): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: returnCodes[code] });
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

/** A client certificate the TLS handshake verified: its subject CN and the SHA-256 of its DER (hex). */
export interface VerifiedClientCert {
  readonly commonName: string;
  readonly fingerprint: string;
}

/**
 * The client certificate of a connection, when it came over TLS and the
 * handshake verified the certificate against the service CA (the mutual-TLS
 * listener); undefined for TCP, WebSocket, and TLS without a client
 * certificate. A certificate with no or several CNs yields CN "" (the
 * registry then finds no record).
 */
export function verifiedClientCert(conn: unknown): VerifiedClientCert | undefined {
  if (!(conn instanceof TLSSocket) || !conn.authorized) return undefined;
  const peer = conn.getPeerCertificate();
  if (!peer?.raw) return undefined;
  const cn: unknown = peer.subject?.CN;
  return {
    commonName: typeof cn === "string" ? cn : "",
    fingerprint: createHash("sha256").update(peer.raw).digest("hex"),
  };
}

/**
 * What the device presents: its verified client certificate when it has one
 * (authType 2: the certificate's CN selects the record, the client id must be
 * the deviceID; username and password are ignored), else username + token
 * (authType 1).
 */
export function credentialsOf(
  conn: unknown,
  connect: ConnectInfo,
  username: string | undefined,
  password: Buffer | undefined,
): DeviceCredentials {
  const cert = verifiedClientCert(conn);
  if (cert) return { kind: "certificate", clientId: connect.claimedId, ...cert };
  return {
    kind: "token",
    clientId: connect.claimedId,
    username: username ?? "",
    token: password ? password.toString("utf8") : "",
  };
}

/**
 * MQTT-3.1.4 CONNECT authentication, checked by the registry: a verified
 * client certificate (mutual TLS) with client id = deviceID, or client id =
 * deviceID, username = deviceUsername, password = token. Refusals answer
 * CONNACK 5 (the registry records connect log status 2), an unreachable
 * registry CONNACK 3 (the device should retry).
 */
export function authenticateHook(ctx: AdapterContext): NonNullable<AedesOptions["authenticate"]> {
  return (client, username, password, done) => {
    const connect = ctx.clients.connectInfo(client) ?? { claimedId: client.id ?? "", keepAlive: 0, clientIp: "" };
    const credentials = credentialsOf(client.conn, connect, username, password);
    // A device that hangs up while its turn is still to come (a reconnect storm) costs the registry nothing. A getter
    // on the connection, not an AbortController and a close listener: those were a few % of a connect's CPU.
    const gaveUp = {
      get aborted() {
        return client.conn.destroyed;
      },
    };
    ctx.registry.authenticate("mqtt", credentials, connect.clientIp, gaveUp).then(
      (outcome) => {
        if (!outcome.ok) {
          ctx.stats.authFailures++;
          const who = credentials.kind === "certificate" ? { commonName: credentials.commonName } : { username };
          ctx.log.info(
            { clientId: connect.claimedId, ...who, ip: connect.clientIp, code: outcome.code, reason: outcome.message },
            "connection refused",
          );
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
