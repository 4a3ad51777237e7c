/**
 * Messages for the gRPC serializers' tests (not exported from the package): AuthenticateBatch requests and answers
 * of every sort, with every field set, and the Connect stream's messages.
 */
import { create } from "@bufbuild/protobuf";
import {
  Access,
  AdapterMessageSchema,
  AuthResult,
  AuthenticateBatchRequestSchema,
  AuthenticateResponseSchema,
  Protocol,
  RegistryMessageSchema,
} from "./gen/iot/registry/v1/registry_pb.js";

/** An admitted device's answer with every field set, a LoRa device's (packed list, nested session) when `lora`. */
export function admitted(i: number, lora = false) {
  return create(AuthenticateResponseSchema, {
    result: AuthResult.OK,
    message: "",
    sessionId: `3f2a9c1e-0000-4000-8000-${String(i).padStart(12, "0")}`,
    device: {
      tenantId: `tenant-${i % 3}`,
      deviceIntId: BigInt(i) * 1_000_000_007n,
      deviceId: `dev-${i}`,
      deviceName: `Gerät ${i} ✓`,
      productIntId: 7n,
      productId: "prod-x",
      protocol: Protocol.MQTT,
      mountpoint: `d/${i}/`,
      defaultDownlinkTopic: "inbox",
      deviceType: i % 2 === 0 ? 1 : -1,
      isGateway: i % 2 === 1,
      autoSub: true,
    },
    policies: [
      { id: 1n, topic: "up/#", access: Access.PUBLISH, allow: true },
      { id: 9_007_199_254_740_993n, topic: "x".repeat(300), access: Access.BOTH, allow: false },
    ],
    subscriptions: [{ topic: "cmd/+", qos: 1 }, { topic: "all" }],
    credentialStamp: "t:abcdefghijklmnopqrstuv",
    tenantLimits: { tenantId: `tenant-${i % 3}`, maxUplinkRate: 4_000_000_000 },
    ...(lora
      ? {
          lora: {
            activation: "otaa",
            devEui: "0011223344556677",
            canJoin: true,
            fcntCheck: 2,
            session: { devAddr: "26011234", fcntUp: 5, fcntDown: 300 },
            usedDevNonces: [1, 200, 70_000, 4_294_967_295],
          },
        }
      : {}),
  });
}

/** A refused device's answer. */
export const refused = (i: number) =>
  create(AuthenticateResponseSchema, { result: AuthResult.BAD_CREDENTIALS, message: `unknown username ${i}` });

/** An AuthenticateBatch request with every credential kind (a oneof), and a request without credentials. */
export function everyCredentialKind() {
  return create(AuthenticateBatchRequestSchema, {
    requests: [
      {
        protocol: Protocol.MQTT,
        clientIp: "10.0.0.1",
        adapterInstanceId: "mqtt-a",
        credentials: {
          kind: { case: "token", value: { clientId: "dev-1", username: "u1", token: "secret ✓" } },
        },
      },
      {
        protocol: Protocol.MQTT,
        credentials: { kind: { case: "certificate", value: { commonName: "cn", fingerprint: "ab" } } },
      },
      { protocol: Protocol.LWM2M, credentials: { kind: { case: "lwm2m", value: { endpoint: "" } } } },
      { protocol: Protocol.LORA, credentials: { kind: { case: "lora", value: { devEui: "00AA" } } } },
      {
        protocol: Protocol.MODBUS,
        credentials: { kind: { case: "modbus", value: { index: 0, gatewayUsername: "g" } } },
      },
      { protocol: Protocol.HTTP },
    ],
  });
}

/** An AuthenticateCall stream message: every credential kind, under an id past 32 bits. */
export const authenticateCall = () =>
  create(AdapterMessageSchema, {
    kind: { case: "authenticate", value: { id: 2n ** 40n + 7n, requests: everyCredentialKind().requests } },
  });

/** The registry's stream messages of every kind, each with its fields set (and an AuthenticateAnswer of each sort). */
export function registryMessages() {
  const downlink = {
    id: 2n ** 53n + 1n,
    deviceIntId: 7n,
    topic: "inbox",
    payload: new Uint8Array([0, 1, 255]),
    qos: 1,
    expiresAtMs: 1_700_000_000_000n,
    properties: '{"responseTopic":"r","correlationData":"c"}',
  };
  return [
    create(RegistryMessageSchema, {
      kind: {
        case: "helloAck",
        value: {
          nodeId: "central-1",
          uplinkBatches: true,
          downlinkResultBatches: true,
          sessionOpenedBatches: true,
          streamAuthentication: true,
        },
      },
    }),
    create(RegistryMessageSchema, {
      kind: { case: "uplinkAck", value: { seqs: [1n, 300n, 2n ** 40n], rejected: [{ seq: 5n, reason: "gone" }] } },
    }),
    create(RegistryMessageSchema, { kind: { case: "downlink", value: downlink } }),
    create(RegistryMessageSchema, { kind: { case: "downlinkBatch", value: { downlinks: [downlink, downlink] } } }),
    create(RegistryMessageSchema, { kind: { case: "kick", value: { deviceIntId: 3n, reason: "blocked" } } }),
    create(RegistryMessageSchema, {
      kind: {
        case: "policyUpdate",
        value: { deviceIntId: 3n, policies: [{ id: 9n, topic: "a/#", access: Access.SUBSCRIBE, allow: true }] },
      },
    }),
    create(RegistryMessageSchema, {
      kind: { case: "subscriptionUpdate", value: { deviceIntId: 3n, subscriptions: [{ topic: "c/+", qos: 1 }] } },
    }),
    create(RegistryMessageSchema, { kind: { case: "tenantLimits", value: { tenantId: "t", maxUplinkRate: 20 } } }),
    create(RegistryMessageSchema, {
      kind: {
        case: "authenticateAnswer",
        value: { id: 2n ** 40n + 7n, responses: [admitted(1), refused(2), admitted(3, true)] },
      },
    }),
    create(RegistryMessageSchema, { kind: { case: "authenticateAnswer", value: { id: 8n, error: "store down" } } }),
    create(RegistryMessageSchema),
  ];
}
