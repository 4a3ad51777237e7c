import { describe, expect, it } from "vitest";
import { ScalarType, type DescField } from "@bufbuild/protobuf";
import { AdapterMessageSchema, UplinkSchema, create, fromBinary, toBinary } from "./index.js";
import { decodeUplinksMessage, encodeUplinksMessage, type UplinkInit } from "./uplink-codec.js";

/** A non-zero value for every field of Uplink, whatever fields it has now (one added later is covered too). */
function everyField(i: number): UplinkInit {
  const u: Record<string, unknown> = {};
  for (const f of UplinkSchema.fields as readonly DescField[]) {
    if (f.fieldKind !== "scalar") throw new Error(`Uplink.${f.localName} is not a scalar: extend the codec and test`);
    switch (f.scalar) {
      case ScalarType.STRING:
        u[f.localName] = `${f.localName}-${i}-é✓`;
        break;
      case ScalarType.BYTES:
        u[f.localName] = new Uint8Array([i, 0, 255, f.number]);
        break;
      case ScalarType.BOOL:
        u[f.localName] = true;
        break;
      case ScalarType.INT64:
      case ScalarType.UINT64:
        u[f.localName] = BigInt(f.number) * 1_000_000_000_007n + BigInt(i);
        break;
      default:
        u[f.localName] = f.number * 1000 + i;
    }
  }
  return u;
}

const viaProtobufEs = (uplinks: UplinkInit[]) =>
  toBinary(
    AdapterMessageSchema,
    create(AdapterMessageSchema, {
      kind: uplinks.length === 1 ? { case: "uplink", value: uplinks[0]! } : { case: "uplinkBatch", value: { uplinks } },
    }),
  );

describe("the uplink codec (BinaryWriter and BinaryReader)", () => {
  it("encodes a lone uplink and a batch, every field Uplink declares set, byte for byte as protobuf-es does", () => {
    const lone = [everyField(1)];
    const batch = [everyField(1), everyField(2), { seq: 3n, topic: "t", payload: new Uint8Array(0) }];
    expect(Buffer.from(encodeUplinksMessage(lone))).toEqual(Buffer.from(viaProtobufEs(lone)));
    expect(Buffer.from(encodeUplinksMessage(batch))).toEqual(Buffer.from(viaProtobufEs(batch)));
  });

  it("encodes ASCII, non-ASCII, short and long strings byte for byte as protobuf-es does", () => {
    const strings = ["a", "telemetry/1", "x".repeat(64), "y".repeat(65), "é", `${"z".repeat(63)}é`, "✓".repeat(70)];
    const uplinks = strings.map((s, i) => ({ seq: BigInt(i + 1), sessionId: s, topic: s, tenantId: `t${s}` }));
    expect(Buffer.from(encodeUplinksMessage(uplinks))).toEqual(Buffer.from(viaProtobufEs(uplinks)));
  });

  it("encodes negative 64-bit integers as protobuf-es does", () => {
    const u = [
      { seq: 1n, deviceIntId: -5n, gatewayDeviceIntId: -(2n ** 63n) },
      { seq: 2n, deviceIntId: 2n ** 62n },
    ];
    expect(Buffer.from(encodeUplinksMessage(u))).toEqual(Buffer.from(viaProtobufEs(u)));
  });

  it("decodes to the very message fromBinary gives, every field Uplink declares set, alone and in a large batch", () => {
    for (const uplinks of [[everyField(7)], Array.from({ length: 300 }, (_, i) => everyField(i))]) {
      const bytes = Buffer.from(viaProtobufEs(uplinks));
      const fast = decodeUplinksMessage(bytes);
      expect(fast).toStrictEqual(fromBinary(AdapterMessageSchema, bytes));
    }
  });

  it("decodes zero-valued fields to protobuf-es's defaults", () => {
    const bytes = Buffer.from(viaProtobufEs([{ seq: 1n }, {}]));
    expect(decodeUplinksMessage(bytes)).toStrictEqual(fromBinary(AdapterMessageSchema, bytes));
  });

  it("round-trips what it encodes, as protobuf-es reads the same bytes", () => {
    const encoded = Buffer.from(encodeUplinksMessage([everyField(3), everyField(4)]));
    const decoded = decodeUplinksMessage(encoded);
    expect(decoded?.kind.case).toBe("uplinkBatch");
    expect(decoded).toStrictEqual(fromBinary(AdapterMessageSchema, encoded));
  });

  it("leaves other messages, unknown fields, a second field and truncated bytes to protobuf-es", () => {
    const hello = toBinary(
      AdapterMessageSchema,
      create(AdapterMessageSchema, { kind: { case: "hello", value: { instanceId: "x" } } }),
    );
    expect(decodeUplinksMessage(hello)).toBeUndefined();
    // An Uplink with seq 1 and field 99 (unknown here, varint 1): protobuf-es keeps that field in $unknown.
    const unknown = Buffer.from([0x22, 0x05, 0x08, 0x01, 0x98, 0x06, 0x01]);
    expect(decodeUplinksMessage(unknown)).toBeUndefined();
    expect(fromBinary(AdapterMessageSchema, unknown).kind.value?.$unknown).toHaveLength(1);
    const lone = Buffer.from(viaProtobufEs([everyField(1)]));
    expect(decodeUplinksMessage(Buffer.concat([lone, lone]))).toBeUndefined();
    const whole = Buffer.from(viaProtobufEs([everyField(1), everyField(2)]));
    expect(decodeUplinksMessage(whole.subarray(0, whole.length - 3))).toBeUndefined();
    expect(decodeUplinksMessage(Buffer.from([0x42, 0x85]))).toBeUndefined();
    expect(decodeUplinksMessage(new Uint8Array(0))).toBeUndefined();
  });

  it("leaves text that is not UTF-8 to protobuf-es, which refuses it", () => {
    // An Uplink whose topic (field 4) is the lone byte 0xff.
    const bad = Buffer.from([0x22, 0x03, 0x22, 0x01, 0xff]);
    expect(decodeUplinksMessage(bad)).toBeUndefined();
    expect(() => fromBinary(AdapterMessageSchema, bad)).toThrow();
  });
});
