import { createHash } from "node:crypto";
import { TLSSocket } from "node:tls";
import type { Duplex } from "node:stream";
import type { AedesOptions, AuthenticateError, Client } from "aedes";
import mqttPacket from "mqtt-packet";
import { mountTopic, type AuthFailureCode, type DeviceCredentials, type DeviceIdentity } from "@iot/adapter-core";
import type { ConnectInfo } from "../client-table.js";
import type { AdapterContext } from "../context.js";
import { prepareRestore } from "../persistent-session.js";

/**
 * Why a connect is refused, as the adapter tells the device: the registry's answer, or BUSY when the adapter's own
 * admission control turned the device away before asking (IOT_ADAPTER_AUTH_QUEUE_LIMIT devices already waiting).
 */
type Refusal = AuthFailureCode | "BUSY";

/**
 * MQTT 3.1/3.1.1 CONNACK return codes (MQTT 3.1.1 table 3.1): 3 server unavailable, 5 not authorized. A tenant at its
 * connection limit and a busy adapter get 3 too: 3.1.1 has no quota code, and "unavailable" tells the device to retry
 * later. Unchanged for these devices since MQTT 5 came.
 */
const returnCodes: Record<Refusal, number> = {
  BAD_CREDENTIALS: 5,
  BLOCKED: 5,
  NOT_ALLOWED: 5,
  UNAVAILABLE: 3,
  QUOTA_EXCEEDED: 3,
  BUSY: 3,
};

/** MQTT 5.0 CONNACK reason codes (MQTT 5.0 §3.2.2.2) and the reason string sent with them (nothing from the logs). */
const reasonCodes: Record<Refusal, { readonly code: number; readonly reason: string }> = {
  BAD_CREDENTIALS: { code: 0x86, reason: "bad user name or password" },
  NOT_ALLOWED: { code: 0x87, reason: "not authorized" },
  BLOCKED: { code: 0x8a, reason: "device blocked" },
  UNAVAILABLE: { code: 0x88, reason: "server unavailable, retry later" },
  QUOTA_EXCEEDED: { code: 0x97, reason: "the tenant's connection quota is reached" },
  BUSY: { code: 0x89, reason: "server busy, retry later" },
};

type AuthenticateDone = Parameters<NonNullable<AedesOptions["authenticate"]>>[3];

function refusalError(returnCode: number, message: string): AuthenticateError {
  return Object.assign(new Error(message), { returnCode });
}

/**
 * Refuses an MQTT 5.0 CONNECT with `code` and a reason string. aedes' authenticate error carries only a 3.1.1 return
 * code (upstream request in docs/devices/mqtt.md): aedes would write 0x86, 0x87 and 0x88 from one, without a reason
 * string, and has none for banned, quota exceeded or server busy. So every refusal of a 5.0 device is written here,
 * on the connection the adapter handed aedes, which is then ended; aedes sees the connection close before its own
 * answer.
 */
function refuseV5(conn: Duplex, code: number, reason: string, then: () => void): void {
  const connack = mqttPacket.generate(
    { cmd: "connack", sessionPresent: false, reasonCode: code, properties: { reasonString: reason } },
    { protocolVersion: 5 },
  );
  conn.once("close", () => setImmediate(then));
  conn.end(connack, () => conn.destroy());
}

/** Answers a refused CONNECT with the code of the device's protocol level. */
function refuse(client: Client, why: Refusal, message: string, done: AuthenticateDone): void {
  if (client.version !== 5) return done(refusalError(returnCodes[why], message), null);
  const { code, reason } = reasonCodes[why];
  refuseV5(client.conn, code, reason, () => done(refusalError(returnCodes[why], message), null));
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
interface VerifiedClientCert {
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
function verifiedClientCert(conn: unknown): VerifiedClientCert | undefined {
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
function credentialsOf(
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
 * registry CONNACK 3 (the device should retry); an MQTT 5.0 device gets the
 * reason code that says why (0x86, 0x87, 0x8A, 0x88, 0x97, 0x89). Once
 * authenticated, the connection's UNSUBSCRIBE filters are mounted from here on.
 */
export function authenticateHook(ctx: AdapterContext): NonNullable<AedesOptions["authenticate"]> {
  return (client, username, password, done) => {
    const connect = ctx.clients.connectInfo(client) ?? {
      claimedId: client.id ?? "",
      keepAlive: 0,
      clientIp: "",
      protocolVersion: client.version,
      cleanStart: true,
      topicAliasMaximum: 0,
    };
    const credentials = credentialsOf(client.conn, connect, username, password);
    // A device that hangs up while its turn is still to come (a reconnect storm) costs the registry nothing. A getter
    // on the connection, not an AbortController and a close listener: those were a few % of a connect's CPU.
    const gaveUp = {
      get aborted() {
        return client.conn.destroyed;
      },
    };
    // A device with a client id has a session the registry's store may hold (persistent-session.ts).
    const session = connect.claimedId
      ? { cleanStart: connect.cleanStart, expiryInterval: client.sessionExpiryInterval }
      : undefined;
    ctx.registry.authenticate("mqtt", credentials, connect.clientIp, gaveUp, session).then(
      (outcome) => {
        if (!outcome.ok) {
          ctx.stats.authFailures++;
          const who = credentials.kind === "certificate" ? { commonName: credentials.commonName } : { username };
          ctx.log.info(
            { clientId: connect.claimedId, ...who, ip: connect.clientIp, code: outcome.code, reason: outcome.message },
            "connection refused",
          );
          refuse(client, outcome.busy ? "BUSY" : outcome.code, outcome.message, done);
          return;
        }
        const { mountpoint } = outcome.session.device;
        const state = ctx.clients.attach(client, outcome.session, connect);
        ctx.unsubscribeRewriters.get(client.conn)?.release((f) => mountTopic(mountpoint, f), client.version);
        client.id = internalClientId(outcome.session.device);
        prepareRestore(ctx, client, state);
        done(null, true);
      },
      (err: unknown) => refuse(client, "UNAVAILABLE", `registry error: ${String(err)}`, done),
    );
  };
}
