import {
  AuthResult,
  create,
  LoraDeviceSchema,
  type AuthenticateResponse,
  type Credentials,
  type DeviceIdentity as PbDeviceIdentity,
  type ProxySubscription,
  type RetainedMessage as PbRetainedMessage,
  type TopicPolicy,
} from "@iot/proto";
import type { AuthOutcome, DeviceIdentity, LoraDevice, ProxyFilter, TopicRule } from "../domain/auth-outcome.js";
import type { DeviceCredentials } from "../domain/device-credentials.js";
import type { PushedRetained } from "../domain/retained.js";
import type { Lwm2mBootstrapSettings } from "../lwm2m/lwm2m-bootstrap.js";

/** Proto credentials → domain credentials; undefined for kinds this registry does not take yet. */
export function credentialsFromProto(c: Credentials | undefined): DeviceCredentials | undefined {
  switch (c?.kind.case) {
    case "token":
      return {
        kind: "token",
        clientId: c.kind.value.clientId,
        username: c.kind.value.username,
        token: c.kind.value.token,
      };
    case "certificate":
      return {
        kind: "certificate",
        clientId: c.kind.value.clientId,
        commonName: c.kind.value.commonName,
        fingerprint: c.kind.value.fingerprint,
      };
    case "modbus":
      return {
        kind: "modbus",
        gatewayDeviceId: c.kind.value.gatewayDeviceId,
        gatewayUsername: c.kind.value.gatewayUsername,
        gatewayToken: c.kind.value.gatewayToken,
        index: c.kind.value.index,
      };
    case "lwm2m":
      return {
        kind: "lwm2m",
        endpoint: c.kind.value.endpoint,
        ...(c.kind.value.bootstrap ? { bootstrap: true } : {}),
      };
    case "lora":
      return {
        kind: "lora",
        devEui: c.kind.value.devEui,
        devAddr: c.kind.value.devAddr,
        ...(c.kind.value.gatewayEui ? { gatewayEui: c.kind.value.gatewayEui } : {}),
      };
    case "psk":
      return { kind: "psk", identity: c.kind.value.identity };
    default:
      return undefined;
  }
}

const results = {
  BAD_CREDENTIALS: AuthResult.BAD_CREDENTIALS,
  BLOCKED: AuthResult.BLOCKED,
  NOT_ALLOWED: AuthResult.NOT_ALLOWED,
} as const;

/** Domain auth outcome → proto response fields (without the session id). */
export function authOutcomeToProto(o: AuthOutcome) {
  if (!o.ok) return { result: results[o.result], message: o.message };
  return {
    result: AuthResult.OK,
    message: "",
    device: deviceToProto(o.device),
    policies: policiesToProto(o.policies),
    subscriptions: subscriptionsToProto(o.subscriptions),
    credentialStamp: o.credentialStamp,
    ...(o.lora ? { lora: loraToProto(o.lora) } : {}),
    retained: retainedToProto(o.retained ?? []),
    pskKeys: o.pskKeys ?? [],
    ...lwm2mBootstrapToProto(o.lwm2mBootstrap),
  };
}

/**
 * The answer that admits a device, as a whole message literal (every field, `$typeName` first; the compiler checks
 * it against the generated type) instead of protobuf-es's `create`, which walks the descriptors by reflection for
 * each of the answer's messages: a few microseconds per device of an AuthenticateBatch under a connect storm.
 */
export function admittedAnswer(
  o: Extract<AuthOutcome, { ok: true }>,
  sessionId: string,
  limits: { tenantId: string; maxUplinkRate: number },
): AuthenticateResponse {
  return {
    $typeName: "iot.registry.v1.AuthenticateResponse",
    result: AuthResult.OK,
    message: "",
    sessionId,
    device: deviceToProto(o.device),
    policies: policiesToProto(o.policies),
    subscriptions: subscriptionsToProto(o.subscriptions),
    credentialStamp: o.credentialStamp,
    ...(o.lora ? { lora: loraToProto(o.lora) } : {}),
    tenantLimits: { $typeName: "iot.registry.v1.TenantLimits", ...limits },
    retained: retainedToProto(o.retained ?? []),
    pskKeys: o.pskKeys ?? [],
    ...lwm2mBootstrapToProto(o.lwm2mBootstrap),
  };
}

/** Retained messages as AuthenticateResponse and RetainedUpdate carry them. */
export function retainedToProto(retained: readonly PushedRetained[]): PbRetainedMessage[] {
  return retained.map((r) => ({
    $typeName: "iot.registry.v1.RetainedMessage",
    topic: r.topic,
    payload: r.payload,
    qos: r.qos,
    properties: r.properties,
  }));
}

function deviceToProto(d: DeviceIdentity): PbDeviceIdentity {
  return {
    $typeName: "iot.registry.v1.DeviceIdentity",
    tenantId: d.tenantId,
    deviceIntId: BigInt(d.deviceIntId),
    deviceId: d.deviceId,
    deviceName: d.deviceName,
    productIntId: BigInt(d.productIntId),
    productId: d.productId,
    protocol: d.protocol,
    mountpoint: d.mountpoint,
    defaultDownlinkTopic: d.defaultDownlinkTopic,
    deviceType: d.deviceType,
    isGateway: d.isGateway,
    autoSub: d.autoSub,
  };
}

function loraToProto(lora: LoraDevice) {
  return create(LoraDeviceSchema, { ...lora, session: lora.session ?? undefined });
}

/** Topic rules as Authenticate and PolicyUpdate carry them. */
export function policiesToProto(rules: readonly TopicRule[]): TopicPolicy[] {
  return rules.map((p) => ({
    $typeName: "iot.registry.v1.TopicPolicy",
    id: BigInt(p.id),
    topic: p.topic,
    access: p.access,
    allow: p.allow,
  }));
}

/** Proxy subscriptions as Authenticate and SubscriptionUpdate carry them. */
export function subscriptionsToProto(subscriptions: readonly ProxyFilter[]): ProxySubscription[] {
  return subscriptions.map((s) => ({ $typeName: "iot.registry.v1.ProxySubscription", topic: s.topic, qos: s.qos }));
}

/** AuthenticateResponse's LwM2M bootstrap fields (19-22): empty or 0 where the record leaves the default. */
function lwm2mBootstrapToProto(s: Lwm2mBootstrapSettings | undefined) {
  return {
    lwm2mSecurityMode: s?.securityMode ?? "",
    lwm2mServerUri: s?.serverUri ?? "",
    lwm2mLifetime: s?.lifetime ?? 0,
    lwm2mBinding: s?.binding ?? "",
  };
}
