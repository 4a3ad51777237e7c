import {
  AuthResult,
  create,
  DeviceIdentitySchema,
  LoraDeviceSchema,
  ProxySubscriptionSchema,
  TopicPolicySchema,
  type Credentials,
} from "@iot/proto";
import type { AuthOutcome, DeviceCredentials, ProxyFilter, TopicRule } from "../domain/device-auth.js";

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
      return { kind: "lwm2m", endpoint: c.kind.value.endpoint };
    case "lora":
      return {
        kind: "lora",
        devEui: c.kind.value.devEui,
        devAddr: c.kind.value.devAddr,
        ...(c.kind.value.gatewayEui ? { gatewayEui: c.kind.value.gatewayEui } : {}),
      };
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
  const d = o.device;
  return {
    result: AuthResult.OK,
    message: "",
    device: create(DeviceIdentitySchema, {
      ...d,
      deviceIntId: BigInt(d.deviceIntId),
      productIntId: BigInt(d.productIntId),
      protocol: d.protocol,
    }),
    policies: policiesToProto(o.policies),
    subscriptions: subscriptionsToProto(o.subscriptions),
    credentialStamp: o.credentialStamp,
    ...(o.lora
      ? {
          lora: create(LoraDeviceSchema, {
            ...o.lora,
            session: o.lora.session ?? undefined,
          }),
        }
      : {}),
  };
}

/** Topic rules as Authenticate and PolicyUpdate carry them. */
export function policiesToProto(rules: readonly TopicRule[]) {
  return rules.map((p) =>
    create(TopicPolicySchema, { id: BigInt(p.id), topic: p.topic, access: p.access, allow: p.allow }),
  );
}

/** Proxy subscriptions as Authenticate and SubscriptionUpdate carry them. */
export function subscriptionsToProto(subscriptions: readonly ProxyFilter[]) {
  return subscriptions.map((s) => create(ProxySubscriptionSchema, { topic: s.topic, qos: s.qos }));
}
