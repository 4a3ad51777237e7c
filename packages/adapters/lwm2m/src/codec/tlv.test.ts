import { describe, expect, test } from "vitest";
import type { Result } from "./result.js";
import {
  decodeTlv,
  encodeTlv,
  MAX_TLV_LENGTH,
  type Tlv,
  type TlvMultipleResource,
  type TlvObjectInstance,
  type TlvResource,
} from "./tlv.js";
import { encodeTlvValue, readTlvValue } from "./tlv-value.js";
import type { TypedValue } from "./typed-value.js";

const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: Result<unknown>): string => {
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.value)}`);
  return r.reason;
};
const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ""), "hex");
const bytes = (r: Result<Uint8Array>) => Buffer.from(value(r)).toString("hex").toUpperCase();
const res = (id: number, v: TypedValue): TlvResource => ({ kind: "resource", id, value: value(encodeTlvValue(v)) });
const inst = (id: number, v: TypedValue) => ({
  kind: "resourceInstance" as const,
  id,
  value: value(encodeTlvValue(v)),
});
const int = (n: number): TypedValue => ({ type: "integer", value: BigInt(n) });
const str = (s: string): TypedValue => ({ type: "string", value: s });

// OMA-TS-LightweightM2M-V1_0 §6.4.3.1 "Single Object Instance Request Example": GET /3/0 of the example client
// (the same bytes are the Device example of Core V1_1 §7.4.3).
const DEVICE_RESOURCES = `
  C8 00 14 4F70656E204D6F62696C6520416C6C69616E6365
  C8 01 16 4C69676874776569676874204D324D20436C69656E74
  C8 02 09 333435303030313233
  C3 03 312E30
  86 06 41 00 01 41 01 05
  88 07 08 42 00 0ED8 42 01 1388
  87 08 41 00 7D 42 01 0384
  C1 09 64
  C1 0A 0F
  83 0B 41 00 00
  C4 0D 5182428F
  C6 0E 2B30323A3030
  C1 10 55`;

// §6.4.3.2 A) the same instance as read by GET /3 (one Object Instance TLV of 0x79 bytes).
const DEVICE_OBJECT = `08 00 79 ${DEVICE_RESOURCES}`;
// §6.4.3.2 B) GET /2 on an Access Control object with instances 0 and 2 (16-bit resource instance id 310 inside).
const ACL =
  "08 00 0E C1 00 01 C1 01 00 83 02 41 7F 07 C1 03 7F 08 02 12 C1 00 03 C1 01 00 87 02 41 7F 07 61 01 36 01 C1 03 7F";
// §6.4.3.2 C) GET /1 on a Server object with one instance.
const SERVER = "08 00 0F C1 00 01 C4 01 00 01 51 80 C1 06 01 C1 07 55";
// §6.4.3.3 object links: object 65 instance 0 links to 66:0 and 66:1; object 66 instances 0 and 1 link to 67:0 and
// to nothing (65535:65535).
const OBJ65 = "88 00 0C 44 00 00 42 00 00 44 01 00 42 00 01 C8 01 0D 38363133383030373535353030 C4 02 12345678";
const OBJ66 =
  "08 00 26 C8 00 0B 6D79536572766963652031 C8 01 0F 496E7465726E65742E31352E323334 C4 02 00430000" +
  " 08 01 26 C8 00 0B 6D79536572766963652032 C8 01 0F 496E7465726E65742E31352E323335 C4 02 FFFFFFFF";

/** The Device resources of §6.4.3.1 built from typed values, in the example's order. */
const deviceResources = (): (TlvResource | TlvMultipleResource)[] => [
  res(0, str("Open Mobile Alliance")),
  res(1, str("Lightweight M2M Client")),
  res(2, str("345000123")),
  res(3, str("1.0")),
  { kind: "multipleResource", id: 6, instances: [inst(0, int(1)), inst(1, int(5))] },
  { kind: "multipleResource", id: 7, instances: [inst(0, int(3800)), inst(1, int(5000))] },
  { kind: "multipleResource", id: 8, instances: [inst(0, int(125)), inst(1, int(900))] },
  res(9, int(100)),
  res(10, int(15)),
  { kind: "multipleResource", id: 11, instances: [inst(0, int(0))] },
  res(13, { type: "time", value: 1367491215 }),
  res(14, str("+02:00")),
  res(16, str("U")),
];

describe("decodeTlv on the specification's examples", () => {
  test("§6.4.3.1: the Device instance's resources, multiple resources and their instances", () => {
    const tlvs = value(decodeTlv(hex(DEVICE_RESOURCES)));
    expect(tlvs.map((t) => [t.kind, t.id])).toEqual([
      ["resource", 0],
      ["resource", 1],
      ["resource", 2],
      ["resource", 3],
      ["multipleResource", 6],
      ["multipleResource", 7],
      ["multipleResource", 8],
      ["resource", 9],
      ["resource", 10],
      ["multipleResource", 11],
      ["resource", 13],
      ["resource", 14],
      ["resource", 16],
    ]);
    expect(tlvs).toEqual(deviceResources());
    const current = tlvs[10]!;
    expect(current.kind === "resource" && value(readTlvValue(current.value, "time"))).toEqual({
      type: "time",
      value: 1367491215,
    });
  });

  test("§6.4.3.2 A: the same resources wrapped in object instance 0", () => {
    expect(value(decodeTlv(hex(DEVICE_OBJECT)))).toEqual([
      { kind: "objectInstance", id: 0, resources: deviceResources() },
    ]);
  });

  test("§6.4.3.2 B: two Access Control instances, one with a 16-bit resource instance id", () => {
    const [i0, i2] = value(decodeTlv(hex(ACL))) as TlvObjectInstance[];
    expect(i0!.id).toBe(0);
    expect(i2!.id).toBe(2);
    expect(i2!.resources[2]).toEqual({
      kind: "multipleResource",
      id: 2,
      instances: [inst(127, int(7)), inst(310, int(1))],
    });
    expect(i0!.resources).toEqual([
      res(0, int(1)),
      res(1, int(0)),
      { kind: "multipleResource", id: 2, instances: [inst(127, int(7))] },
      res(3, int(127)),
    ]);
  });

  test("§6.4.3.2 C: a Server instance with a 4-byte lifetime and a boolean", () => {
    expect(value(decodeTlv(hex(SERVER)))).toEqual([
      {
        kind: "objectInstance",
        id: 0,
        resources: [res(0, int(1)), res(1, int(86400)), res(6, { type: "boolean", value: true }), res(7, str("U"))],
      },
    ]);
  });

  test("§6.4.3.3: object links in a multiple resource and in single resources", () => {
    const obj65 = value(decodeTlv(hex(OBJ65)));
    expect(obj65[0]).toEqual({
      kind: "multipleResource",
      id: 0,
      instances: [
        inst(0, { type: "objlnk", value: { objectId: 66, instanceId: 0 } }),
        inst(1, { type: "objlnk", value: { objectId: 66, instanceId: 1 } }),
      ],
    });
    expect(obj65.slice(1)).toEqual([res(1, str("8613800755500")), res(2, int(0x12345678))]);
    const obj66 = value(decodeTlv(hex(OBJ66))) as TlvObjectInstance[];
    const link = (i: number) => {
      const r = obj66[i]!.resources[2]!;
      return r.kind === "resource" ? value(readTlvValue(r.value, "objlnk")) : undefined;
    };
    expect(link(0)).toEqual({ type: "objlnk", value: { objectId: 67, instanceId: 0 } });
    expect(link(1)).toEqual({ type: "objlnk", value: { objectId: 65535, instanceId: 65535 } });
  });
});

describe("encodeTlv", () => {
  test.each([
    ["§6.4.3.1", DEVICE_RESOURCES, (): Tlv[] => deviceResources()],
    ["§6.4.3.2 A", DEVICE_OBJECT, (): Tlv[] => [{ kind: "objectInstance", id: 0, resources: deviceResources() }]],
  ])("writes the %s example byte for byte from typed values", (_, expected, build) => {
    expect(bytes(encodeTlv(build()))).toBe(expected.replace(/\s+/g, ""));
  });

  test.each([
    ["§6.4.3.2 B", ACL],
    ["§6.4.3.2 C", SERVER],
    ["§6.4.3.3 object 65", OBJ65],
    ["§6.4.3.3 object 66", OBJ66],
  ])("round-trips the %s example byte for byte", (_, example) => {
    expect(bytes(encodeTlv(value(decodeTlv(hex(example)))))).toBe(example.replace(/\s+/g, ""));
  });

  test("uses a 16-bit identifier above 255 (IPSO resource 5850 On/Off = true is E1 16 DA 01)", () => {
    expect(bytes(encodeTlv([res(5850, { type: "boolean", value: true })]))).toBe("E116DA01");
    expect(bytes(encodeTlv([res(255, { type: "boolean", value: true })]))).toBe("C1FF01");
    expect(bytes(encodeTlv([res(65535, { type: "boolean", value: false })]))).toBe("E1FFFF00");
  });

  test("puts lengths up to 7 in the type byte, then 8, 16 and 24-bit length fields", () => {
    const header = (length: number) =>
      bytes(encodeTlv([{ kind: "resource", id: 1, value: new Uint8Array(length) }])).slice(0, 10);
    expect(header(0)).toBe("C001");
    expect(header(7)).toMatch(/^C701/);
    expect(header(8)).toMatch(/^C80108/);
    expect(header(255)).toMatch(/^C801FF/);
    expect(header(256)).toMatch(/^D0010100/);
    expect(header(65535)).toMatch(/^D001FFFF/);
    expect(header(65536)).toMatch(/^D801010000/);
  });

  test("round-trips a value with a 24-bit length when the decode limit allows it", () => {
    const big: Tlv[] = [{ kind: "resource", id: 0, value: new Uint8Array(70_000).fill(0xab) }];
    const encoded = value(encodeTlv(big));
    expect(reason(decodeTlv(encoded))).toMatch(/70005 bytes is above the limit of 65536/);
    expect(value(decodeTlv(encoded, 100_000))).toEqual(big);
  });

  test("refuses an id beyond 0..65535 and a value longer than 2^24-1 bytes", () => {
    expect(reason(encodeTlv([{ kind: "resource", id: 65536, value: new Uint8Array() }]))).toMatch(/beyond 0..65535/);
    expect(reason(encodeTlv([{ kind: "resource", id: -1, value: new Uint8Array() }]))).toMatch(/beyond 0..65535/);
    expect(reason(encodeTlv([{ kind: "resource", id: 1.5, value: new Uint8Array() }]))).toMatch(/beyond 0..65535/);
    const huge = { kind: "resource" as const, id: 1, value: new Uint8Array(MAX_TLV_LENGTH + 1) };
    expect(reason(encodeTlv([huge]))).toMatch(/above 16777215/);
    const nested: Tlv = {
      kind: "multipleResource",
      id: 2,
      instances: [{ kind: "resourceInstance", id: 70000, value: new Uint8Array() }],
    };
    expect(reason(encodeTlv([nested]))).toMatch(/resourceInstance id 70000/);
  });

  test("an empty list is an empty payload, and an empty payload decodes to no entries", () => {
    expect(bytes(encodeTlv([]))).toBe("");
    expect(value(decodeTlv(new Uint8Array()))).toEqual([]);
  });
});

describe("decodeTlv refuses what is not TLV", () => {
  test.each([
    ["C8", /header at byte 0 is cut off/],
    ["C8 00", /header at byte 0 is cut off/],
    ["E1 16", /header at byte 0 is cut off/],
    ["D8 00 01 00", /cut off/],
    ["C3 00 31 2E", /resource 0 at byte 0 has 3 value bytes, 2 left/],
    ["C8 00 14 4F70656E", /has 20 value bytes, 4 left/],
    ["C1 09 64 C1", /header at byte 3 is cut off/],
    ["08 00 04 C1 00 01 C1", /header at byte 6 is cut off/],
    ["08 00 05 C1 00 01 C1", /objectInstance 0 at byte 0 has 5 value bytes, 4 left/],
    ["08 00 03 C1 00 01 C1 01 01", /mixes/],
    ["08 00 04 C3 00 01 02 03", /resource 0 at byte 3 has 3 value bytes, 2 left/],
    ["08 00 03 08 00 00", /objectInstance 0 at byte 3 cannot be inside objectInstance/],
    ["08 00 03 41 00 01", /resourceInstance 0 at byte 3 cannot be inside objectInstance/],
    ["83 0B C1 00 00", /resource 0 at byte 2 cannot be inside multipleResource/],
    ["C1 00 01 41 01 05", /mixes/],
    ["C1 09 64 C1 09 65", /resource 9 at byte 3 repeats an id/],
    ["C1 09 64 81 09 00", /multipleResource 9 at byte 3 repeats an id/],
    ["08 00 00 08 00 00", /objectInstance 0 at byte 3 repeats/],
    ["83 0B 41 00 00 41 00 01".replace("83", "86"), /resourceInstance 0 at byte 5 repeats/],
  ])("%s is refused", (input, why) => {
    expect(reason(decodeTlv(hex(input)))).toMatch(why);
  });

  test("an oversized payload is refused before it is read", () => {
    expect(reason(decodeTlv(new Uint8Array(11), 10))).toMatch(/11 bytes is above the limit of 10/);
  });

  test("non-minimal identifier and length fields are read, since the specification does not forbid them", () => {
    expect(value(decodeTlv(hex("E8 00 09 01 64")))).toEqual([res(9, int(100))]);
    expect(value(decodeTlv(hex("D8 09 00 00 01 64")))).toEqual([res(9, int(100))]);
  });

  test("random bytes are decoded or refused, never thrown, and what decodes re-encodes to a decodable payload", () => {
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    let decoded = 0;
    for (let i = 0; i < 3000; i++) {
      const input = Uint8Array.from({ length: 1 + (next() % 24) }, () => next() % 256);
      const result = decodeTlv(input);
      if (!result.ok) continue;
      decoded++;
      expect(value(decodeTlv(value(encodeTlv(result.value))))).toEqual(result.value);
    }
    expect(decoded).toBeGreaterThan(0);
  });
});
