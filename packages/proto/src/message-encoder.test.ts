import { describe, expect, it } from "vitest";
import {
  AdapterMessageSchema,
  AuthResult,
  AuthenticateBatchRequestSchema,
  AuthenticateBatchResponseSchema,
  AuthenticateResponseSchema,
  Access,
  Protocol,
  create,
  fromBinary,
  toBinary,
} from "./index.js";
import { messageEncoder } from "./message-encoder.js";

/** An admitted device's answer with every field set, a LoRa device's (packed list, nested session) when `lora`. */
function admitted(i: number, lora = false) {
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

const refused = (i: number) =>
  create(AuthenticateResponseSchema, { result: AuthResult.BAD_CREDENTIALS, message: `unknown username ${i}` });

describe("the message encoder", () => {
  const encodeAnswers = messageEncoder(AuthenticateBatchResponseSchema);
  const encodeRequests = messageEncoder(AuthenticateBatchRequestSchema);

  it("writes an AuthenticateBatch answer byte for byte as protobuf-es does, every field and sort of answer", () => {
    const batch = create(AuthenticateBatchResponseSchema, {
      responses: [admitted(1), refused(2), admitted(3, true), create(AuthenticateResponseSchema), admitted(4)],
    });
    const bytes = encodeAnswers(batch);
    expect(Buffer.from(bytes).equals(Buffer.from(toBinary(AuthenticateBatchResponseSchema, batch)))).toBe(true);
    expect(fromBinary(AuthenticateBatchResponseSchema, bytes)).toEqual(batch);
  });

  it("writes a batch of 1,000 answers (lengths of several varint bytes, the buffer grown) as protobuf-es does", () => {
    const batch = create(AuthenticateBatchResponseSchema, {
      responses: Array.from({ length: 1000 }, (_, i) => (i % 7 === 0 ? refused(i) : admitted(i, i % 50 === 0))),
    });
    const bytes = encodeAnswers(batch);
    expect(bytes.byteLength).toBeGreaterThan(64 * 1024);
    expect(Buffer.from(bytes).equals(Buffer.from(toBinary(AuthenticateBatchResponseSchema, batch)))).toBe(true);
  });

  it("writes every credential kind of an AuthenticateBatch request (a oneof) as protobuf-es does", () => {
    const batch = create(AuthenticateBatchRequestSchema, {
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
    const bytes = encodeRequests(batch);
    expect(Buffer.from(bytes).equals(Buffer.from(toBinary(AuthenticateBatchRequestSchema, batch)))).toBe(true);
    expect(fromBinary(AuthenticateBatchRequestSchema, bytes)).toEqual(batch);
  });

  it("keeps the unknown fields of a message it was given (a newer peer's fields), as protobuf-es does", () => {
    const withUnknown = fromBinary(
      AuthenticateBatchResponseSchema,
      Buffer.concat([
        toBinary(
          AuthenticateBatchResponseSchema,
          create(AuthenticateBatchResponseSchema, {
            responses: [admitted(1)],
          }),
        ),
        Buffer.from([0xf8, 0x06, 0x2a]),
      ]),
    );
    expect(withUnknown.$unknown?.length).toBe(1);
    const bytes = encodeAnswers(withUnknown);
    expect(Buffer.from(bytes).equals(Buffer.from(toBinary(AuthenticateBatchResponseSchema, withUnknown)))).toBe(true);
  });

  it("writes the adapter's stream messages (a SessionOpenedBatch, a session, an uplink) as protobuf-es does", () => {
    const encodeStream = messageEncoder(AdapterMessageSchema);
    const opened = (i: number) => ({
      sessionId: `s-${i}`,
      deviceIntId: BigInt(i),
      clientIp: "127.0.0.1",
      keepAlive: 60,
      openedAtMs: 1_763_900_000_000n + BigInt(i),
      tenantId: "tenant-1",
      credentialStamp: "t:abcdefghijklmnopqrstuv",
      sleeping: i % 2 === 0,
    });
    for (const message of [
      create(AdapterMessageSchema, {
        kind: { case: "sessionOpenedBatch", value: { sessions: Array.from({ length: 300 }, (_, i) => opened(i)) } },
      }),
      create(AdapterMessageSchema, { kind: { case: "sessionOpened", value: opened(1) } }),
      create(AdapterMessageSchema, {
        kind: { case: "uplink", value: { seq: 5n, topic: "t", payload: new Uint8Array([1, 2]), qos: 1 } },
      }),
      create(AdapterMessageSchema),
    ])
      expect(Buffer.from(encodeStream(message)).equals(Buffer.from(toBinary(AdapterMessageSchema, message)))).toBe(
        true,
      );
  });

  it("writes a message type with a map or other field sorts through protobuf-es, the same bytes", () => {
    const encodeStream = messageEncoder(AdapterMessageSchema);
    const message = create(AdapterMessageSchema, {
      kind: { case: "hello", value: { instanceId: "mqtt-x", protocol: Protocol.MQTT, sessions: [{ sessionId: "s" }] } },
    });
    expect(Buffer.from(encodeStream(message)).equals(Buffer.from(toBinary(AdapterMessageSchema, message)))).toBe(true);
  });
});
