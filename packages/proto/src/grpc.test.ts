import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { AdapterMessageSchema, RegistryMessageSchema, UplinkSchema } from "./gen/iot/registry/v1/registry_pb.js";
import { registryServiceDefinition } from "./grpc.js";
import { authenticateCall, registryMessages } from "./sample-messages.js";

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
});
