import { describe, expect, test } from "vitest";
import type { ModbusArea } from "./register-address.js";
import {
  applyBit,
  BYTE_ORDERS,
  decodeValue,
  encodeValue,
  FLOAT32_MAX,
  pointLayout,
  registersFor,
  type ByteOrder,
  type PointLayout,
} from "./value-codec.js";

const value = <T>(r: { ok: true; value: T } | { ok: false; reason: string }): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: { ok: boolean; reason?: string }): string => {
  expect(r.ok).toBe(false);
  return r.reason ?? "";
};
const layoutOf = (pointDataType: number, binarySize: number | null = null, area: ModbusArea = "holdingRegister") =>
  value(pointLayout({ pointDataType, binarySize }, area));

type Vector = { name: string; type: number; size: number | null; value: number; wire: Record<ByteOrder, number[]> };

// Register images from an independent source (Node's Buffer write*BE, then the registers permuted by hand).
const F32_123_456 = {
  ABCD: [0x42f6, 0xe979],
  CDAB: [0xe979, 0x42f6],
  BADC: [0xf642, 0x79e9],
  DCBA: [0x79e9, 0xf642],
};
const I32_MINUS_123456789 = {
  ABCD: [0xf8a4, 0x32eb],
  CDAB: [0x32eb, 0xf8a4],
  BADC: [0xa4f8, 0xeb32],
  DCBA: [0xeb32, 0xa4f8],
};
const U32_3000000000 = {
  ABCD: [0xb2d0, 0x5e00],
  CDAB: [0x5e00, 0xb2d0],
  BADC: [0xd0b2, 0x005e],
  DCBA: [0x005e, 0xd0b2],
};
const VECTORS: Vector[] = [
  {
    name: "15 signed 16-bit",
    type: 15,
    size: null,
    value: -2,
    wire: { ABCD: [0xfffe], CDAB: [0xfffe], BADC: [0xfeff], DCBA: [0xfeff] },
  },
  {
    name: "15 signed 16-bit, binarySize 2",
    type: 15,
    size: 2,
    value: -32768,
    wire: { ABCD: [0x8000], CDAB: [0x8000], BADC: [0x0080], DCBA: [0x0080] },
  },
  { name: "15 signed 32-bit", type: 15, size: 4, value: -123456789, wire: I32_MINUS_123456789 },
  {
    name: "16 unsigned 16-bit",
    type: 16,
    size: null,
    value: 0x1234,
    wire: { ABCD: [0x1234], CDAB: [0x1234], BADC: [0x3412], DCBA: [0x3412] },
  },
  { name: "16 unsigned 32-bit", type: 16, size: 4, value: 3000000000, wire: U32_3000000000 },
  { name: "17 float32", type: 17, size: null, value: 123.456, wire: F32_123_456 },
  {
    name: "17 float32 -1.5",
    type: 17,
    size: 4,
    value: -1.5,
    wire: { ABCD: [0xbfc0, 0], CDAB: [0, 0xbfc0], BADC: [0xc0bf, 0], DCBA: [0, 0xc0bf] },
  },
  {
    name: "18 float64",
    type: 18,
    size: null,
    value: 123.456,
    wire: {
      ABCD: [0x405e, 0xdd2f, 0x1a9f, 0xbe77],
      CDAB: [0xbe77, 0x1a9f, 0xdd2f, 0x405e],
      BADC: [0x5e40, 0x2fdd, 0x9f1a, 0x77be],
      DCBA: [0x77be, 0x9f1a, 0x2fdd, 0x5e40],
    },
  },
  {
    name: "18 float64 -0.1",
    type: 18,
    size: 8,
    value: -0.1,
    wire: {
      ABCD: [0xbfb9, 0x9999, 0x9999, 0x999a],
      CDAB: [0x999a, 0x9999, 0x9999, 0xbfb9],
      BADC: [0xb9bf, 0x9999, 0x9999, 0x9a99],
      DCBA: [0x9a99, 0x9999, 0x9999, 0xb9bf],
    },
  },
  { name: "21 signed long", type: 21, size: null, value: -123456789, wire: I32_MINUS_123456789 },
  { name: "22 unsigned long", type: 22, size: 4, value: 3000000000, wire: U32_3000000000 },
  {
    name: "24 time (epoch seconds 1700000000, read as milliseconds)",
    type: 24,
    size: null,
    value: 1700000000000,
    wire: { ABCD: [0x6553, 0xf100], CDAB: [0xf100, 0x6553], BADC: [0x5365, 0x00f1], DCBA: [0x00f1, 0x5365] },
  },
  { name: "25 float", type: 25, size: null, value: 123.456, wire: F32_123_456 },
];

describe("every type in every byte order", () => {
  const cases = VECTORS.flatMap((v) => BYTE_ORDERS.map((order) => [v.name, order, v] as const));

  test.each(cases)("%s in %s decodes its known register image", (_name, order, v) => {
    expect(value(decodeValue(layoutOf(v.type, v.size), v.wire[order], order))).toBe(v.value);
  });

  test.each(cases)("%s in %s encodes to its known register image", (_name, order, v) => {
    expect(value(encodeValue(layoutOf(v.type, v.size), v.value, order))).toEqual({
      kind: "registers",
      registers: v.wire[order],
    });
  });

  test.each(BYTE_ORDERS)("bits 19 and 23 of a register are read and written the same in %s", (order) => {
    for (const type of [19, 23]) {
      const layout = layoutOf(type, 3);
      expect(value(decodeValue(layout, [0b1000], order))).toBe(true);
      expect(value(decodeValue(layout, [0xfff7], order))).toBe(false);
      expect(value(encodeValue(layout, true, order))).toEqual({ kind: "bit", bit: 3, value: true });
    }
  });

  test.each(BYTE_ORDERS)("coils of types 19 and 23 are unaffected by %s", (order) => {
    for (const type of [19, 23]) {
      const layout = layoutOf(type, null, "coil");
      expect(value(decodeValue(layout, [true], order))).toBe(true);
      expect(value(decodeValue(layout, [0], order))).toBe(false);
      expect(value(encodeValue(layout, 1, order))).toEqual({ kind: "coil", value: true });
    }
  });
});

describe("pointLayout and registersFor", () => {
  test.each([
    [15, null, 1],
    [15, 2, 1],
    [15, 4, 2],
    [16, null, 1],
    [16, 4, 2],
    [17, null, 2],
    [17, 4, 2],
    [18, null, 4],
    [18, 8, 4],
    [19, 15, 1],
    [21, null, 2],
    [22, null, 2],
    [23, 0, 1],
    [24, null, 2],
    [25, 4, 2],
  ] as const)("type %i with binarySize %s takes %i registers", (type, size, count) => {
    expect(value(registersFor(type, size))).toBe(count);
  });

  test("a coil or discrete input of type 19 or 23 is one bit", () => {
    expect(value(registersFor(23, null, "coil"))).toBe(1);
    expect(value(registersFor(19, 0, "discreteInput"))).toBe(1);
    expect(layoutOf(23, null, "discreteInput")).toEqual({ kind: "coil" });
  });

  test("a boolean in a register without binarySize is its bit 0", () => {
    expect(layoutOf(23, null, "inputRegister")).toEqual({ kind: "bit", bit: 0 });
  });

  test.each([
    [15, 1, /2 or 4/],
    [16, 8, /2 or 4/],
    [17, 8, /empty or 4/],
    [18, 4, /empty or 8/],
    [21, 2, /empty or 4/],
    [22, 8, /empty or 4/],
    [24, 8, /empty or 4/],
    [25, 2, /empty or 4/],
    [19, 16, /bit position 0 to 15/],
    [23, -1, /bit position 0 to 15/],
    [23, 1.5, /bit position 0 to 15/],
    [1, null, /cannot be read over Modbus/],
    [3, null, /cannot be read over Modbus/],
    [20, null, /cannot be read over Modbus/],
  ] as const)("type %i with binarySize %s is refused", (type, size, why) => {
    expect(reason(registersFor(type, size))).toMatch(why);
  });

  test("coils and discrete inputs refuse word types and bit positions", () => {
    expect(reason(registersFor(17, null, "coil"))).toMatch(/only pointDataType 19 and 23/);
    expect(reason(registersFor(15, null, "discreteInput"))).toMatch(/only pointDataType 19 and 23/);
    expect(reason(registersFor(23, 3, "coil"))).toMatch(/no bit of a coil/);
  });
});

describe("decodeValue", () => {
  test("reads a value at its offset within a longer response", () => {
    expect(value(decodeValue(layoutOf(17), [1, 2, 0x42f6, 0xe979, 3], "ABCD", 2))).toBe(123.456);
    expect(value(decodeValue(layoutOf(23, null, "coil"), [false, false, true], "ABCD", 2))).toBe(true);
  });

  test("float32 values come back as their shortest decimal, not the float's binary expansion", () => {
    expect(value(decodeValue(layoutOf(17), [0x3dcc, 0xcccd]))).toBe(0.1);
    expect(value(decodeValue(layoutOf(25), [0x7f7f, 0xffff]))).toBe(FLOAT32_MAX);
  });

  test("integer boundaries of each width", () => {
    expect(value(decodeValue(layoutOf(15), [0x7fff]))).toBe(32767);
    expect(value(decodeValue(layoutOf(15), [0x8000]))).toBe(-32768);
    expect(value(decodeValue(layoutOf(16), [0xffff]))).toBe(65535);
    expect(value(decodeValue(layoutOf(21), [0x8000, 0]))).toBe(-2147483648);
    expect(value(decodeValue(layoutOf(21), [0x7fff, 0xffff]))).toBe(2147483647);
    expect(value(decodeValue(layoutOf(22), [0xffff, 0xffff]))).toBe(4294967295);
    expect(value(decodeValue(layoutOf(24), [0xffff, 0xffff]))).toBe(4294967295000);
    expect(value(decodeValue(layoutOf(24), [0, 0]))).toBe(0);
  });

  test("bit 15 is the register's most significant bit and bit 0 its least", () => {
    expect(value(decodeValue(layoutOf(19, 15), [0x8000]))).toBe(true);
    expect(value(decodeValue(layoutOf(19, 0), [0x8000]))).toBe(false);
    expect(value(decodeValue(layoutOf(19, 0), [0x0001]))).toBe(true);
  });

  test("every float32 a slave sends encodes back to the same registers, its shortest decimal included", () => {
    const images = [
      [0x7f7f, 0xffff],
      [0xff7f, 0xffff],
      [0x0000, 0x0001],
      [0x0080, 0x0000],
      [0x3f80, 0x0001],
      [0x42f6, 0xe979],
      [0xc2c8, 0x0000],
    ];
    for (const registers of images) {
      const decoded = value(decodeValue(layoutOf(17), registers));
      expect(value(encodeValue(layoutOf(17), decoded))).toEqual({ kind: "registers", registers });
    }
  });

  test("NaN and infinities from the slave are refused", () => {
    expect(reason(decodeValue(layoutOf(17), [0x7fc0, 0]))).toMatch(/NaN/);
    expect(reason(decodeValue(layoutOf(25), [0xff80, 0]))).toMatch(/-Infinity/);
    expect(reason(decodeValue(layoutOf(18), [0x7ff0, 0, 0, 0]))).toMatch(/Infinity/);
  });

  test("a response too short for the point is refused", () => {
    expect(reason(decodeValue(layoutOf(18), [1, 2, 3]))).toMatch(/has 3 values, the point needs 4 at 0/);
    expect(reason(decodeValue(layoutOf(17), [1, 2, 3], "ABCD", 2))).toMatch(/needs 2 at 2/);
    expect(reason(decodeValue(layoutOf(23, null, "coil"), []))).toMatch(/needs 1/);
    expect(reason(decodeValue(layoutOf(16), [1], "ABCD", -1))).toMatch(/at -1/);
  });

  test("registers that are not 16-bit values and bits that are not booleans are refused", () => {
    expect(reason(decodeValue(layoutOf(16), [0x10000]))).toMatch(/not a 16-bit value/);
    expect(reason(decodeValue(layoutOf(16), [-1]))).toMatch(/not a 16-bit value/);
    expect(reason(decodeValue(layoutOf(16), [1.5]))).toMatch(/not a 16-bit value/);
    expect(reason(decodeValue(layoutOf(16), [true]))).toMatch(/not a 16-bit value/);
    expect(reason(decodeValue(layoutOf(23, null, "coil"), [2]))).toMatch(/neither true nor false/);
  });
});

describe("encodeValue", () => {
  const refusals: [string, PointLayout, unknown, RegExp][] = [
    ["int16 above 32767", layoutOf(15), 32768, /-32768 to 32767/],
    ["int16 below -32768", layoutOf(15), -32769, /-32768 to 32767/],
    ["uint16 above 65535", layoutOf(16), 65536, /0 to 65535/],
    ["uint16 below 0", layoutOf(16), -1, /0 to 65535/],
    ["int32 above 2^31-1", layoutOf(21), 2147483648, /-2147483648 to 2147483647/],
    ["int32 below -2^31", layoutOf(15, 4), -2147483649, /-2147483648 to 2147483647/],
    ["uint32 above 2^32-1", layoutOf(22), 4294967296, /0 to 4294967295/],
    ["a fraction for an integer", layoutOf(16), 1.5, /integer/],
    ["a string for an integer", layoutOf(16), "1", /integer/],
    ["float32 beyond FLT_MAX", layoutOf(17), 3.5e38, /within ±/],
    ["NaN for a float", layoutOf(25), NaN, /finite/],
    ["Infinity for a double", layoutOf(18), Infinity, /finite/],
    ["a string for a float", layoutOf(18), "1.5", /finite/],
    ["a negative time", layoutOf(24), -1000, /from 1970/],
    ["a time past 2106-02-07T06:28:15Z", layoutOf(24), 4294967296000, /2106-02-07T06:28:15.000Z/],
    ["a time without its offset", layoutOf(24), "2024-05-01T12:00:00", /ISO 8601/],
    ["2 for a bit", layoutOf(19, 1), 2, /true, false, 1 or 0/],
    ["'true' for a coil", layoutOf(23, null, "coil"), "true", /true, false, 1 or 0/],
    ["null for a coil", layoutOf(23, null, "coil"), null, /true, false, 1 or 0/],
  ];
  test.each(refusals)("refuses %s", (_name, layout, raw, why) => {
    expect(reason(encodeValue(layout, raw))).toMatch(why);
  });

  test("writes integer boundaries exactly", () => {
    expect(value(encodeValue(layoutOf(15), -32768))).toEqual({ kind: "registers", registers: [0x8000] });
    expect(value(encodeValue(layoutOf(16), 65535))).toEqual({ kind: "registers", registers: [0xffff] });
    expect(value(encodeValue(layoutOf(21), -1))).toEqual({ kind: "registers", registers: [0xffff, 0xffff] });
    expect(value(encodeValue(layoutOf(22), 0))).toEqual({ kind: "registers", registers: [0, 0] });
  });

  test("float32 writes round to the nearest float32, and FLT_MAX itself fits", () => {
    expect(value(encodeValue(layoutOf(17), 0.1))).toEqual({ kind: "registers", registers: [0x3dcc, 0xcccd] });
    expect(value(encodeValue(layoutOf(25), -FLOAT32_MAX))).toEqual({ kind: "registers", registers: [0xff7f, 0xffff] });
  });

  test("times are written as whole epoch seconds from milliseconds or an ISO 8601 date-time", () => {
    const at1700000000 = { kind: "registers", registers: [0x6553, 0xf100] };
    expect(value(encodeValue(layoutOf(24), 1700000000999))).toEqual(at1700000000);
    expect(value(encodeValue(layoutOf(24), "2023-11-14T22:13:20Z"))).toEqual(at1700000000);
    expect(value(encodeValue(layoutOf(24), "2023-11-15T00:13:20.500+02:00"))).toEqual(at1700000000);
    expect(value(encodeValue(layoutOf(24), 4294967295000))).toEqual({ kind: "registers", registers: [0xffff, 0xffff] });
  });

  test("every encoded value decodes back to itself in every byte order", () => {
    const samples: [PointLayout, number][] = [
      [layoutOf(15), -1234],
      [layoutOf(16, 4), 70000],
      [layoutOf(17), 2.5],
      [layoutOf(18), Math.PI],
      [layoutOf(21), -7],
      [layoutOf(22), 0xdeadbeef],
      [layoutOf(24), 86400000],
      [layoutOf(25), -0.25],
    ];
    for (const order of BYTE_ORDERS)
      for (const [layout, v] of samples) {
        const encoded = value(encodeValue(layout, v, order));
        if (encoded.kind !== "registers") throw new Error("expected registers");
        expect(value(decodeValue(layout, encoded.registers, order))).toBe(v);
      }
  });
});

describe("applyBit", () => {
  test("sets and clears one bit and keeps the others", () => {
    expect(applyBit(0x00f0, 0, true)).toBe(0x00f1);
    expect(applyBit(0x00f1, 4, false)).toBe(0x00e1);
    expect(applyBit(0x0000, 15, true)).toBe(0x8000);
    expect(applyBit(0xffff, 15, false)).toBe(0x7fff);
    expect(applyBit(0x0001, 0, true)).toBe(0x0001);
  });
});
