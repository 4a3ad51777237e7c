import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  AdapterMessageSchema,
  AuthenticateBatchResponseSchema,
  RegistryMessageSchema,
  UplinkSchema,
} from "./gen/iot/registry/v1/registry_pb.js";
import { registryServiceDefinition } from "./grpc.js";
import { admitted, authenticateCall, everyCredentialKind, refused, registryMessages } from "./sample-messages.js";
import { encodeUplinksMessage } from "./uplink-codec.js";

describe("registry service definition", () => {
  it("declares Authenticate as unary and Connect as a bidi stream", () => {
    expect(registryServiceDefinition.authenticate?.path).toBe("/iot.registry.v1.RegistryService/Authenticate");
    expect(registryServiceDefinition.authenticate?.requestStream).toBe(false);
    expect(registryServiceDefinition.connect?.requestStream).toBe(true);
    expect(registryServiceDefinition.connect?.responseStream).toBe(true);
  });

  it("round-trips an uplink through its serializers", () => {
    const msg = create(AdapterMessageSchema, {
      kind: { case: "uplink", value: create(UplinkSchema, { seq: 7n, topic: "t", payload: new Uint8Array([1, 2]) }) },
    });
    const def = registryServiceDefinition.connect!;
    const back = def.requestDeserialize(def.requestSerialize(msg)) as typeof msg;
    expect(back.kind.case).toBe("uplink");
    expect(back.kind.value).toMatchObject({ seq: 7n, topic: "t" });
    expect(Array.from((back.kind.value as { payload: Uint8Array }).payload)).toEqual([1, 2]);
    expect(fromBinary(AdapterMessageSchema, toBinary(AdapterMessageSchema, msg)).kind.case).toBe("uplink");
  });

  it("sends an uplink batch's encoded bytes as they are and reads them back as protobuf-es does", () => {
    const uplinks = [1n, 2n, 3n].map((seq) => ({ seq, topic: `t/${seq}`, payload: new Uint8Array([Number(seq)]) }));
    const encoded = encodeUplinksMessage(uplinks);
    const def = registryServiceDefinition.connect!;
    const bytes = def.requestSerialize(encoded);
    expect(Buffer.from(bytes).equals(Buffer.from(encoded))).toBe(true);
    expect(def.requestDeserialize(bytes)).toStrictEqual(fromBinary(AdapterMessageSchema, bytes));
    expect((def.requestDeserialize(bytes) as { kind: { case: string } }).kind.case).toBe("uplinkBatch");
  });

  it("carries the Connect stream's messages both ways as protobuf-es writes and reads them, checks and their answers too", () => {
    const def = registryServiceDefinition.connect!;
    for (const msg of registryMessages()) {
      const bytes = def.responseSerialize(msg);
      expect(Buffer.from(bytes).equals(Buffer.from(toBinary(RegistryMessageSchema, msg)))).toBe(true);
      // Bytes fields are views of the received Buffer, as protobuf-es's own are.
      expect(def.responseDeserialize(bytes)).toStrictEqual(fromBinary(RegistryMessageSchema, bytes));
    }
    const call = authenticateCall();
    const callBytes = def.requestSerialize(call);
    expect(def.requestDeserialize(callBytes)).toStrictEqual(fromBinary(AdapterMessageSchema, callBytes));
    expect(def.requestDeserialize(callBytes)).toMatchObject({
      kind: { case: "authenticate", value: { id: 2n ** 40n + 7n } },
    });
  });

  it("round-trips AuthenticateBatch requests of every credential kind and answers of every sort", () => {
    const def = registryServiceDefinition.authenticateBatch!;
    const request = everyCredentialKind();
    expect(def.requestDeserialize(def.requestSerialize(request))).toStrictEqual(request);
    const response = create(AuthenticateBatchResponseSchema, {
      responses: [admitted(1), refused(2), admitted(3, true)],
    });
    expect(def.responseDeserialize(def.responseSerialize(response))).toStrictEqual(response);
  });
});
