/**
 * Conversions between the generated protobuf types (bigint int64s, enums) and
 * the adapter's plain types. Only the gRPC client imports this.
 */
import {
  AdapterMessageSchema,
  type UplinkSchema,
  type DownlinkResultSchema,
  AuthResult,
  IssueListenerCertificateRequestSchema,
  DownlinkStatus as PbDownlinkStatus,
  Protocol,
  create,
  encodeUplinksMessage,
  type EncodedAdapterMessage,
  type AdapterMessage,
  type SessionOpened,
  type AuthenticateRequest,
  type Credentials,
  type AuthenticateResponse,
  type IssueListenerCertificateRequest,
  type Downlink as PbDownlink,
  type TopicPolicy as PbTopicPolicy,
  type ProxySubscription as PbProxySubscription,
  type RetainedMessage as PbRetainedMessage,
} from "@iot/proto";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { LiveSession } from "./live-sessions.js";
import { fromMqttSessionState, mqttSessionRequest, resumedFlowFields, resumedFlowOf } from "./mqtt-session-convert.js";
import type {
  AuthFailureCode,
  AuthOutcome,
  DeviceCredentials,
  DeviceSession,
  Downlink,
  DownlinkOutcome,
  DownlinkStatus,
  MqttSessionAsk,
  PolicyAccess,
  ProtocolName,
  ProxySubscription,
  RetainedMessage,
  TopicPolicy,
  Uplink,
} from "./registry-client.js";
import { fromLoraDevice, fromLoraMulticast } from "./lora-convert.js";
import { lwm2mBootstrapOf } from "./lwm2m-bootstrap-convert.js";

/** Registry Protocol enum value of each protocol name. */
const PROTOCOL_CODES: Record<ProtocolName, Protocol> = {
  mqtt: Protocol.MQTT,
  coap: Protocol.COAP,
  lwm2m: Protocol.LWM2M,
  lora: Protocol.LORA,
  http: Protocol.HTTP,
  websocket: Protocol.WEBSOCKET,
  modbus: Protocol.MODBUS,
};

const failureCodes: Partial<Record<AuthResult, AuthFailureCode>> = {
  [AuthResult.BAD_CREDENTIALS]: "BAD_CREDENTIALS",
  [AuthResult.BLOCKED]: "BLOCKED",
  [AuthResult.NOT_ALLOWED]: "NOT_ALLOWED",
  [AuthResult.QUOTA_EXCEEDED]: "QUOTA_EXCEEDED",
};

const downlinkStatusCodes: Record<DownlinkStatus, PbDownlinkStatus> = {
  DELIVERED: PbDownlinkStatus.DELIVERED,
  SENT: PbDownlinkStatus.SENT,
  FAILED: PbDownlinkStatus.FAILED,
  QUEUED: PbDownlinkStatus.QUEUED,
};

/**
 * Builds the AuthenticateRequest of one device. Written as whole message literals (every field, `$typeName` first,
 * as protobuf-es's `create` makes them; the compiler checks them against the generated types): `create` walks the
 * descriptors by reflection for each of the three nested messages, a few microseconds per device of a connect storm.
 */
export function toAuthenticateRequest(
  protocol: ProtocolName,
  credentials: DeviceCredentials,
  clientIp: string,
  instanceId: string,
  mqttSession?: MqttSessionAsk,
): AuthenticateRequest {
  return {
    $typeName: "iot.registry.v1.AuthenticateRequest",
    protocol: PROTOCOL_CODES[protocol],
    credentials: { $typeName: "iot.registry.v1.Credentials", kind: credentialsKind(credentials) },
    clientIp,
    adapterInstanceId: instanceId,
    ...(mqttSession ? { mqttSession: mqttSessionRequest(mqttSession) } : {}),
  };
}

/** The request for a listener certificate, naming the adapter instance for the registry's log. */
export function toListenerCertificateRequest(
  csrPem: string,
  hostnames: readonly string[],
  instanceId: string,
): IssueListenerCertificateRequest {
  return create(IssueListenerCertificateRequestSchema, {
    csrPem,
    hostnames: [...hostnames],
    adapterInstanceId: instanceId,
  });
}

function credentialsKind(c: DeviceCredentials): Credentials["kind"] {
  switch (c.kind) {
    case "token":
      return {
        case: "token",
        value: {
          $typeName: "iot.registry.v1.TokenCredentials",
          clientId: c.clientId,
          username: c.username,
          token: c.token,
        },
      };
    case "certificate":
      return {
        case: "certificate",
        value: {
          $typeName: "iot.registry.v1.CertificateCredentials",
          clientId: c.clientId,
          commonName: c.commonName,
          fingerprint: c.fingerprint,
        },
      };
    case "lwm2m":
      return {
        case: "lwm2m",
        value: { $typeName: "iot.registry.v1.Lwm2mCredentials", endpoint: c.endpoint, bootstrap: c.bootstrap ?? false },
      };
    case "lora":
      return {
        case: "lora",
        value: {
          $typeName: "iot.registry.v1.LoraCredentials",
          devEui: c.devEui,
          devAddr: c.devAddr,
          gatewayEui: c.gatewayEui ?? "",
        },
      };
    case "modbus":
      return {
        case: "modbus",
        value: {
          $typeName: "iot.registry.v1.ModbusCredentials",
          gatewayDeviceId: c.gatewayDeviceId,
          index: c.index,
          gatewayUsername: c.gatewayUsername,
          gatewayToken: c.gatewayToken,
        },
      };
    case "psk":
      return { case: "psk", value: { $typeName: "iot.registry.v1.PskCredentials", identity: c.identity } };
  }
}

/** Plain policies; rules with an unknown access code are dropped (they could match nothing). */
export function fromPolicies(policies: readonly PbTopicPolicy[]): TopicPolicy[] {
  return policies
    .filter((p) => (p.access as number) >= 1 && (p.access as number) <= 3)
    .map((p) => ({ id: Number(p.id), topic: p.topic, access: p.access as number as PolicyAccess, allow: p.allow }));
}

/** Plain proxy subscriptions; QoS above 1 is capped at 1 (the adapters deliver at most QoS 1). */
export function fromSubscriptions(subscriptions: readonly PbProxySubscription[]): ProxySubscription[] {
  return subscriptions.map((s) => ({ topic: s.topic, qos: Math.min(s.qos, 1) }));
}

/** The outcome of Authenticate; an OK without a device or a result code we do not know counts as UNAVAILABLE. */
export function fromAuthenticateResponse(res: AuthenticateResponse): AuthOutcome {
  if (res.result === AuthResult.OK && res.device) {
    const d = res.device;
    return {
      ok: true,
      session: {
        sessionId: res.sessionId,
        device: {
          tenantId: d.tenantId,
          deviceIntId: Number(d.deviceIntId),
          deviceId: d.deviceId,
          deviceName: d.deviceName,
          productIntId: Number(d.productIntId),
          productId: d.productId,
          mountpoint: d.mountpoint,
          defaultDownlinkTopic: d.defaultDownlinkTopic,
          deviceType: d.deviceType,
          isGateway: d.isGateway,
          autoSub: d.autoSub,
        },
        policies: fromPolicies(res.policies),
        subscriptions: fromSubscriptions(res.subscriptions),
        credentialStamp: res.credentialStamp,
        tenantUplinkRate: res.tenantLimits?.maxUplinkRate ?? 0,
        ...(res.lora ? { lora: fromLoraDevice(res.lora) } : {}),
        ...(res.retained.length > 0 ? { retained: fromRetained(res.retained) } : {}),
        ...(res.mqttSession ? { mqttSession: fromMqttSessionState(res.mqttSession) } : {}),
        ...(res.pskKeys.length > 0 ? { pskKeys: res.pskKeys.map((k) => Buffer.from(k)) } : {}),
        ...lwm2mBootstrapOf(res),
      },
    };
  }
  const code = failureCodes[res.result];
  if (code) return { ok: false, code, message: res.message || code };
  return { ok: false, code: "UNAVAILABLE", message: `registry answered result ${res.result} ${res.message}`.trim() };
}

/** A downlink with numbers instead of bigints. */
export function fromDownlink(d: PbDownlink): Downlink {
  return {
    id: Number(d.id),
    deviceIntId: Number(d.deviceIntId),
    topic: d.topic,
    payload: d.payload,
    qos: d.qos,
    expiresAtMs: Number(d.expiresAtMs),
    ...(d.properties ? { properties: d.properties } : {}),
    ...(d.resumePacketId > 0 ? { resume: resumedFlowOf(d)! } : {}),
    ...(d.loraMulticast ? { loraMulticast: fromLoraMulticast(d.loraMulticast) } : {}),
  };
}

/** Plain retained messages (RetainedMessage has no bigints; an empty properties text is left out). */
export function fromRetained(retained: readonly PbRetainedMessage[]): RetainedMessage[] {
  return retained.map((r) => ({
    topic: r.topic,
    payload: r.payload,
    qos: r.qos,
    ...(r.properties ? { properties: r.properties } : {}),
  }));
}

type Kind = MessageInitShape<typeof AdapterMessageSchema>["kind"];
const message = (kind: Kind): AdapterMessage => create(AdapterMessageSchema, { kind });

/** SessionOpened as carried alone and inside Hello (a whole message literal, as toAuthenticateRequest). */
export function sessionOpenedValue(live: LiveSession): SessionOpened {
  const { session, info } = live;
  return {
    $typeName: "iot.registry.v1.SessionOpened",
    sessionId: session.sessionId,
    deviceIntId: BigInt(session.device.deviceIntId),
    clientIp: info.clientIp,
    keepAlive: info.keepAlive,
    openedAtMs: BigInt(live.openedAtMs),
    tenantId: session.device.tenantId,
    credentialStamp: session.credentialStamp ?? "",
    sleeping: info.sleeping ?? false,
  };
}

/** The first message of every Connect stream. */
export function helloMessage(
  instanceId: string,
  protocol: ProtocolName,
  version: string,
  sessions: LiveSession[],
): AdapterMessage {
  return message({
    case: "hello",
    value: {
      instanceId,
      protocol: PROTOCOL_CODES[protocol],
      version,
      sessions: sessions.map(sessionOpenedValue),
      downlinkBatches: true,
    },
  });
}

/** A SessionOpened stream message. */
export function sessionOpenedMessage(live: LiveSession): AdapterMessage {
  return message({ case: "sessionOpened", value: sessionOpenedValue(live) });
}

/** An AuthenticateCall stream message: devices to check, answered on the stream by an AuthenticateAnswer of `id`. */
export function authenticateCallMessage(id: number, requests: AuthenticateRequest[]): AdapterMessage {
  return message({ case: "authenticate", value: { id: BigInt(id), requests } });
}

/** Sessions opened in one turn of the event loop, as one SessionOpenedBatch (one alone as SessionOpened). */
export function sessionsOpenedMessage(sessions: SessionOpened[]): AdapterMessage {
  if (sessions.length === 1) return message({ case: "sessionOpened", value: sessions[0]! });
  return message({ case: "sessionOpenedBatch", value: { sessions } });
}

/** A SessionState stream message: the session's device went to sleep or woke up. */
export function sessionStateMessage(session: DeviceSession, sleeping: boolean): AdapterMessage {
  return message({
    case: "sessionState",
    value: {
      sessionId: session.sessionId,
      deviceIntId: BigInt(session.device.deviceIntId),
      tenantId: session.device.tenantId,
      sleeping,
    },
  });
}

/** An AuthenticationFailed stream message: a refusal the adapter decided alone (a DTLS key that did not verify). */
export function authenticationFailedMessage(
  protocol: ProtocolName,
  credentials: DeviceCredentials,
  clientIp: string,
  reason: string,
): AdapterMessage {
  return message({
    case: "authenticationFailed",
    value: {
      protocol: PROTOCOL_CODES[protocol],
      credentials: { $typeName: "iot.registry.v1.Credentials", kind: credentialsKind(credentials) },
      clientIp,
      reason,
    },
  });
}

/** A SessionClosed stream message. */
export function sessionClosedMessage(session: DeviceSession, reason: string, closedAtMs: number): AdapterMessage {
  return message({
    case: "sessionClosed",
    value: {
      sessionId: session.sessionId,
      deviceIntId: BigInt(session.device.deviceIntId),
      reason,
      closedAtMs: BigInt(closedAtMs),
      tenantId: session.device.tenantId,
    },
  });
}

/** An Uplink stream message with its sequence number. */
export function uplinkMessage(seq: number, u: Uplink): AdapterMessage {
  return message({ case: "uplink", value: uplinkValue(seq, u) });
}

/**
 * An UplinkBatch stream message: the uplinks in seq order, for a registry whose HelloAck accepts batches, encoded
 * by the proto package's uplink codec. A lone uplink goes as a plain Uplink: one of the largest size fits a stream
 * message only without the batch's envelope.
 */
export function uplinkBatchMessage(uplinks: UplinkInit[]): EncodedAdapterMessage {
  return encodeUplinksMessage(uplinks);
}

/** An Uplink as it goes into a stream message, alone or in a batch. */
export type UplinkInit = MessageInitShape<typeof UplinkSchema>;

/** The Uplink fields of a buffered uplink. */
export function uplinkValue(seq: number, u: Uplink): UplinkInit {
  return {
    seq: BigInt(seq),
    sessionId: u.sessionId,
    deviceIntId: BigInt(u.deviceIntId),
    topic: u.topic,
    payload: u.payload,
    clientIp: u.clientIp,
    receivedAtMs: BigInt(u.receivedAtMs),
    qos: u.qos,
    tenantId: u.tenantId,
    gatewayDeviceIntId: BigInt(u.gatewayDeviceIntId ?? 0),
    metadata: u.metadata ?? "",
    resendId: u.resend?.id ?? "",
    maybeResend: u.resend?.maybe ?? false,
    retain: u.retain ?? false,
  };
}

/** A DownlinkResult as it goes into a stream message, alone or in a batch. */
export type DownlinkResultInit = MessageInitShape<typeof DownlinkResultSchema>;

/** The DownlinkResult fields of an outcome. */
export function downlinkResultValue(downlinkId: number, outcome: DownlinkOutcome): DownlinkResultInit {
  return {
    downlinkId: BigInt(downlinkId),
    status: downlinkStatusCodes[outcome.status],
    message: outcome.message ?? "",
    ...resumedFlowFields(outcome.resume),
    ...(outcome.multicast
      ? { multicastGateways: outcome.multicast.gateways, multicastCovered: outcome.multicast.covered }
      : {}),
  };
}

/** A DownlinkResult stream message. */
export function downlinkResultMessage(result: DownlinkResultInit): AdapterMessage {
  return message({ case: "downlinkResult", value: result });
}

/** The results in one stream message, for a registry whose HelloAck accepts batches (a lone one goes alone). */
export function downlinkResultsMessage(results: DownlinkResultInit[]): AdapterMessage {
  if (results.length === 1) return downlinkResultMessage(results[0]!);
  return message({ case: "downlinkResultBatch", value: { results } });
}
