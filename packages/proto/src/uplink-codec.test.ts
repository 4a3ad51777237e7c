import { describe, expect, it } from "vitest";
import { ScalarType, type DescField } from "@bufbuild/protobuf";
import { AdapterMessageSchema, UplinkSchema, create, fromBinary, toBinary } from "./index.js";
import { decodeUplinksMessage, encodeUplinksMessage, fastUplinkCodec, type UplinkInit } from "./uplink-codec.js";

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

describe("the hand-made uplink codec", () => {
  it("is on for Uplink as it is declared", () => {
    expect(fastUplinkCodec).toBe(true);
  });

  it("encodes a lone uplink and a batch byte for byte as protobuf-es does", () => {
    const lone = [everyField(1)];
    const batch = [everyField(1), everyField(2), { seq: 3n, topic: "t", payload: new Uint8Array(0) }];
    expect(Buffer.from(encodeUplinksMessage(lone)!)).toEqual(Buffer.from(viaProtobufEs(lone)));
    expect(Buffer.from(encodeUplinksMessage(batch)!)).toEqual(Buffer.from(viaProtobufEs(batch)));
  });

  it("encodes ASCII, non-ASCII, short and long strings byte for byte as protobuf-es does", () => {
    const strings = ["a", "telemetry/1", "x".repeat(64), "y".repeat(65), "é", `${"z".repeat(63)}é`, "✓".repeat(70)];
    const uplinks = strings.map((s, i) => ({ seq: BigInt(i + 1), sessionId: s, topic: s, tenantId: `t${s}` }));
    expect(Buffer.from(encodeUplinksMessage(uplinks)!)).toEqual(Buffer.from(viaProtobufEs(uplinks)));
  });

  it("encodes negative 64-bit integers as protobuf-es does", () => {
    const u = [
      { seq: 1n, deviceIntId: -5n, gatewayDeviceIntId: -(2n ** 63n) },
      { seq: 2n, deviceIntId: 2n ** 62n },
    ];
    expect(Buffer.from(encodeUplinksMessage(u)!)).toEqual(Buffer.from(viaProtobufEs(u)));
  });

  it("decodes to the very message fromBinary gives, for a lone uplink and a large batch", () => {
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
    const encoded = Buffer.from(encodeUplinksMessage([everyField(3), everyField(4)])!);
    const decoded = decodeUplinksMessage(encoded);
    expect(decoded?.kind.case).toBe("uplinkBatch");
    expect(decoded).toStrictEqual(fromBinary(AdapterMessageSchema, encoded));
  });

  it("leaves other messages, unknown fields and truncated bytes to protobuf-es", () => {
    const hello = toBinary(
      AdapterMessageSchema,
      create(AdapterMessageSchema, { kind: { case: "hello", value: { instanceId: "x" } } }),
    );
    expect(decodeUplinksMessage(hello)).toBeUndefined();
    // An Uplink with field 99 (unknown here): protobuf-es keeps it in $unknown.
    const unknown = Buffer.from([0x22, 0x04, 0x08, 0x01, 0x98, 0x06]);
    expect(decodeUplinksMessage(Buffer.concat([unknown, Buffer.from([0x00])]))).toBeUndefined();
    const whole = Buffer.from(viaProtobufEs([everyField(1), everyField(2)]));
    expect(decodeUplinksMessage(whole.subarray(0, whole.length - 3))).toBeUndefined();
    expect(decodeUplinksMessage(Buffer.from([0x42, 0x85]))).toBeUndefined();
  });
});
