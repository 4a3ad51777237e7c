import { describe, expect, it } from "vitest";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import {
  AdapterMessageSchema,
  AuthenticateBatchRequestSchema,
  AuthenticateBatchResponseSchema,
  AuthenticateResponseSchema,
  DownlinkStatus,
  LoraDeviceSchema,
  Protocol,
  RegistryMessageSchema,
  create,
  fromBinary,
  toBinary,
} from "./index.js";
import { StructSchema } from "@bufbuild/protobuf/wkt";
import { messageDecoder } from "./message-decoder.js";
import {
  admitted,
  authenticateCall,
  everyCredentialKind,
  opened,
  refused,
  registryMessages,
} from "./sample-messages.js";

/** Decodes `bytes` with the decoder and with protobuf-es; both objects must be equal, prototype and all. */
function bothWays<D extends DescMessage>(schema: D, bytes: Uint8Array): MessageShape<D> {
  const ours = messageDecoder(schema)(bytes);
  const theirs = fromBinary(schema, bytes);
  expect(ours).toStrictEqual(theirs);
  return ours;
}

describe("the message decoder", () => {
  it("reads AuthenticateBatch answers of every sort as protobuf-es does, every field set or left out", () => {
    const batch = create(AuthenticateBatchResponseSchema, {
      responses: [admitted(1), refused(2), admitted(3, true), create(AuthenticateResponseSchema), admitted(4)],
    });
    const decoded = bothWays(AuthenticateBatchResponseSchema, toBinary(AuthenticateBatchResponseSchema, batch));
    expect(decoded).toStrictEqual(batch);
    expect(decoded.responses[0]!.device!.deviceType).toBe(-1);
    expect(decoded.responses[0]!.policies[1]!.id).toBe(9_007_199_254_740_993n);
  });

  it("reads a batch of 1,000 answers (lengths of several varint bytes) as protobuf-es does", () => {
    const batch = create(AuthenticateBatchResponseSchema, {
      responses: Array.from({ length: 1000 }, (_, i) => (i % 7 === 0 ? refused(i) : admitted(i, i % 50 === 0))),
    });
    bothWays(AuthenticateBatchResponseSchema, toBinary(AuthenticateBatchResponseSchema, batch));
  });

  it("reads every credential kind of an AuthenticateBatch request (a oneof) as protobuf-es does", () => {
    const batch = everyCredentialKind();
    expect(bothWays(AuthenticateBatchRequestSchema, toBinary(AuthenticateBatchRequestSchema, batch))).toStrictEqual(
      batch,
    );
  });

  it("reads the adapter's stream messages of every kind as protobuf-es does", () => {
    for (const message of [
      create(AdapterMessageSchema, {
        kind: { case: "sessionOpenedBatch", value: { sessions: Array.from({ length: 300 }, (_, i) => opened(i)) } },
      }),
      create(AdapterMessageSchema, { kind: { case: "sessionOpened", value: opened(1) } }),
      create(AdapterMessageSchema, {
        kind: { case: "sessionClosed", value: { sessionId: "s", deviceIntId: 3n, reason: "bye", closedAtMs: 9n } },
      }),
      create(AdapterMessageSchema, {
        kind: { case: "hello", value: { instanceId: "mqtt-x", protocol: Protocol.MQTT, sessions: [opened(2)] } },
      }),
      create(AdapterMessageSchema, {
        kind: {
          case: "downlinkResultBatch",
          value: { results: [{ downlinkId: 4n, status: DownlinkStatus.FAILED, message: "gone" }] },
        },
      }),
      create(AdapterMessageSchema, {
        kind: { case: "uplink", value: { seq: 5n, topic: "t", payload: new Uint8Array([1, 2]), qos: 1 } },
      }),
      authenticateCall(),
      create(AdapterMessageSchema),
    ])
      expect(bothWays(AdapterMessageSchema, toBinary(AdapterMessageSchema, message))).toStrictEqual(message);
  });

  it("reads the registry's stream messages of every kind as protobuf-es does", () => {
    for (const message of registryMessages())
      expect(bothWays(RegistryMessageSchema, toBinary(RegistryMessageSchema, message))).toStrictEqual(message);
  });

  it("reads strings that are not ASCII as protobuf-es does, and refuses bytes that are not UTF-8 as it does", () => {
    /** A length-delimited field (bodies here are shorter than 128 bytes: one length byte). */
    const field = (tag: number, body: Buffer) => Buffer.concat([Buffer.from([tag, body.length]), body]);
    // requests (1) { credentials (2) { token (1) { token (3): the bytes } } }
    const request = (token: Buffer) => field(0x0a, field(0x12, field(0x0a, field(0x1a, token))));
    const fine = Buffer.from("Gerät ✓ 𝄞 and a longer text past the short-string loop", "utf8");
    for (const token of [fine, Buffer.from("Gerät"), Buffer.from("ascii")]) {
      const decoded = bothWays(AuthenticateBatchRequestSchema, request(token));
      expect(decoded.requests[0]!.credentials!.kind.value).toMatchObject({ token: token.toString() });
    }
    const broken = Buffer.from([0x61, 0xff, 0xc3, 0x28, 0xe2, 0x82, 0x62, 0xf0, 0x9f, 0x98]);
    for (const token of [broken, Buffer.concat([broken, fine])]) {
      expect(() => fromBinary(AuthenticateBatchRequestSchema, request(token))).toThrow(/utf-8/);
      expect(() => messageDecoder(AuthenticateBatchRequestSchema)(request(token))).toThrow(/utf-8/);
    }
  });

  it("keeps the unknown fields of a newer peer's message, as protobuf-es does", () => {
    const bytes = Buffer.concat([
      toBinary(AuthenticateBatchResponseSchema, create(AuthenticateBatchResponseSchema, { responses: [admitted(1)] })),
      Buffer.from([0xf8, 0x06, 0x2a]), // field 111, varint 42
    ]);
    expect(bothWays(AuthenticateBatchResponseSchema, bytes).$unknown).toHaveLength(1);
  });

  it("reads a list of integers sent unpacked, and a message field sent twice (merged), as protobuf-es does", () => {
    // used_dev_nonces (10) as three separate varints; then session (9) twice, each with one field.
    const unpacked = Buffer.from([0x50, 0x01, 0x50, 0xc8, 0x01, 0x50, 0x03]);
    const lora = bothWays(LoraDeviceSchema, unpacked);
    expect(lora.usedDevNonces).toEqual([1, 200, 3]);
    const twice = Buffer.from([0x4a, 0x02, 0x20, 0x05, 0x4a, 0x02, 0x28, 0x07]);
    const merged = bothWays(LoraDeviceSchema, twice);
    expect(merged.session).toMatchObject({ fcntUp: 5, fcntDown: 7 });
  });

  it("leaves a message type with a field sort it does not read (a map) to protobuf-es, the same object", () => {
    const struct = create(StructSchema, {
      fields: { a: { kind: { case: "stringValue", value: "x" } }, b: { kind: { case: "numberValue", value: 1.5 } } },
    });
    expect(bothWays(StructSchema, toBinary(StructSchema, struct))).toStrictEqual(struct);
  });

  it("fails on a truncated message as protobuf-es does", () => {
    const bytes = toBinary(
      AuthenticateBatchResponseSchema,
      create(AuthenticateBatchResponseSchema, { responses: [admitted(1)] }),
    );
    const cut = bytes.subarray(0, bytes.length - 3);
    expect(() => fromBinary(AuthenticateBatchResponseSchema, cut)).toThrow();
    expect(() => messageDecoder(AuthenticateBatchResponseSchema)(cut)).toThrow();
  });
});
