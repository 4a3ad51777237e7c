import { describe, expect, it } from "vitest";
import {
  AdapterMessageSchema,
  AuthenticateBatchRequestSchema,
  AuthenticateBatchResponseSchema,
  AuthenticateResponseSchema,
  Protocol,
  RegistryMessageSchema,
  create,
  fromBinary,
  toBinary,
} from "./index.js";
import { messageEncoder } from "./message-encoder.js";
import {
  admitted,
  authenticateCall,
  everyCredentialKind,
  opened,
  refused,
  registryMessages,
} from "./sample-messages.js";

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
    const batch = everyCredentialKind();
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
    for (const message of [
      create(AdapterMessageSchema, {
        kind: { case: "sessionOpenedBatch", value: { sessions: Array.from({ length: 300 }, (_, i) => opened(i)) } },
      }),
      create(AdapterMessageSchema, { kind: { case: "sessionOpened", value: opened(1) } }),
      create(AdapterMessageSchema, {
        kind: { case: "uplink", value: { seq: 5n, topic: "t", payload: new Uint8Array([1, 2]), qos: 1 } },
      }),
      authenticateCall(),
      create(AdapterMessageSchema),
    ])
      expect(Buffer.from(encodeStream(message)).equals(Buffer.from(toBinary(AdapterMessageSchema, message)))).toBe(
        true,
      );
  });

  it("writes the registry's stream messages of every kind as protobuf-es does", () => {
    const encodeRegistry = messageEncoder(RegistryMessageSchema);
    for (const message of registryMessages())
      expect(Buffer.from(encodeRegistry(message)).equals(Buffer.from(toBinary(RegistryMessageSchema, message)))).toBe(
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
