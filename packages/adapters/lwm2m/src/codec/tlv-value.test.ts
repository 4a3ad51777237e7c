import { describe, expect, test } from "vitest";
import type { Result } from "./result.js";
import {
  encodeTlvValue,
  readTlvBoolean,
  readTlvFloat,
  readTlvInteger,
  readTlvObjlnk,
  readTlvString,
  readTlvTime,
  readTlvUnsigned,
  readTlvValue,
} from "./tlv-value.js";
import type { ResourceType, TypedValue } from "./typed-value.js";

const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: Result<unknown>): string => {
  if (r.ok) throw new Error(`expected a refusal, got ${String(r.value)}`);
  return r.reason;
};
const hex = (t: string) => Uint8Array.from(Buffer.from(t.replace(/\s+/g, ""), "hex"));
const encoded = (v: TypedValue) => Buffer.from(value(encodeTlvValue(v))).toString("hex");

describe("integers", () => {
  test.each([
    ["00", 0n],
    ["7F", 127n],
    ["80", -128n],
    ["FF", -1n],
    ["7FFF", 32767n],
    ["8000", -32768n],
    ["7FFFFFFF", 2147483647n],
    ["80000000", -2147483648n],
    ["7FFFFFFFFFFFFFFF", 9223372036854775807n],
    ["8000000000000000", -9223372036854775808n],
  ])("%s reads as the signed integer %s and is written back in the same width", (bytes, n) => {
    expect(value(readTlvInteger(hex(bytes)))).toBe(n);
    expect(encoded({ type: "integer", value: n })).toBe(bytes.toLowerCase());
  });

  test.each([
    [128n, "0080"],
    [-129n, "ff7f"],
    [32768n, "00008000"],
    [-32769n, "ffff7fff"],
    [2147483648n, "0000000080000000"],
    [-2147483649n, "ffffffff7fffffff"],
  ])("%s takes the next width up: %s", (n, bytes) => {
    expect(encoded({ type: "integer", value: n })).toBe(bytes);
    expect(value(readTlvInteger(hex(bytes)))).toBe(n);
  });

  test("integers beyond 64-bit signed are refused on write", () => {
    expect(reason(encodeTlvValue({ type: "integer", value: 2n ** 63n }))).toMatch(/beyond 64-bit signed/);
    expect(reason(encodeTlvValue({ type: "integer", value: -(2n ** 63n) - 1n }))).toMatch(/beyond 64-bit signed/);
  });

  test.each([0, 3, 5, 6, 7, 9])("an integer of %i bytes is refused", (n) => {
    expect(reason(readTlvInteger(new Uint8Array(n)))).toMatch(`not ${n}`);
  });

  test("unsigned integers (1.1) read the high bit as magnitude and reach 2^64-1", () => {
    expect(value(readTlvUnsigned(hex("FF")))).toBe(255n);
    expect(value(readTlvUnsigned(hex("FFFF")))).toBe(65535n);
    expect(value(readTlvUnsigned(hex("FFFFFFFF")))).toBe(4294967295n);
    expect(value(readTlvUnsigned(hex("FFFFFFFFFFFFFFFF")))).toBe(2n ** 64n - 1n);
    expect(encoded({ type: "unsignedInteger", value: 255n })).toBe("ff");
    expect(encoded({ type: "unsignedInteger", value: 256n })).toBe("0100");
    expect(encoded({ type: "unsignedInteger", value: 2n ** 64n - 1n })).toBe("ffffffffffffffff");
    expect(reason(encodeTlvValue({ type: "unsignedInteger", value: 2n ** 64n }))).toMatch(/beyond 0..2\^64-1/);
    expect(reason(encodeTlvValue({ type: "unsignedInteger", value: -1n }))).toMatch(/beyond/);
    expect(reason(readTlvUnsigned(new Uint8Array(3)))).toMatch(/not 3/);
  });
});

describe("floats", () => {
  test("a value exact in single precision is written in 4 bytes, any other in 8", () => {
    expect(encoded({ type: "float", value: 1.5 })).toBe("3fc00000");
    expect(encoded({ type: "float", value: -0 })).toBe("80000000");
    expect(encoded({ type: "float", value: 0.1 })).toBe("3fb999999999999a");
    expect(encoded({ type: "float", value: 3.4028234663852886e38 })).toBe("7f7fffff");
    expect(encoded({ type: "float", value: Number.MAX_VALUE })).toBe("7fefffffffffffff");
    expect(encoded({ type: "float", value: Number.MIN_VALUE })).toBe("0000000000000001");
    expect(encoded({ type: "float", value: Infinity })).toBe("7f800000");
  });

  test("reads 4 and 8-byte floats, including the limits and non-finite values", () => {
    expect(value(readTlvFloat(hex("3fc00000")))).toBe(1.5);
    expect(value(readTlvFloat(hex("41B4CCCD")))).toBeCloseTo(22.6, 5);
    expect(value(readTlvFloat(hex("7f7fffff")))).toBe(3.4028234663852886e38);
    expect(value(readTlvFloat(hex("7fefffffffffffff")))).toBe(Number.MAX_VALUE);
    expect(value(readTlvFloat(hex("ff800000")))).toBe(-Infinity);
    expect(value(readTlvFloat(hex("7ff8000000000000")))).toBeNaN();
    for (const n of [0, 1, 2, 3, 5, 16]) expect(reason(readTlvFloat(new Uint8Array(n)))).toMatch(`not ${n}`);
  });

  test("every float round-trips exactly", () => {
    for (const v of [0, -1.25, 22.6, 1e-300, -1e300, 123456789.123, Math.PI, 2 ** -149, -(2 ** 127)])
      expect(value(readTlvFloat(value(encodeTlvValue({ type: "float", value: v }))))).toBe(v);
  });
});

describe("booleans, strings, object links and time", () => {
  test("a boolean is one byte 0 or 1, anything else is refused", () => {
    expect(value(readTlvBoolean(hex("00")))).toBe(false);
    expect(value(readTlvBoolean(hex("01")))).toBe(true);
    expect(reason(readTlvBoolean(hex("02")))).toMatch(/0 or 1, not 2/);
    expect(reason(readTlvBoolean(hex("0001")))).toMatch(/1 byte, not 2/);
    expect(reason(readTlvBoolean(new Uint8Array()))).toMatch(/not 0/);
    expect(encoded({ type: "boolean", value: true })).toBe("01");
    expect(encoded({ type: "boolean", value: false })).toBe("00");
  });

  test("a string is UTF-8, and invalid UTF-8 is refused rather than patched", () => {
    expect(value(readTlvString(hex("2B30323A3030")))).toBe("+02:00");
    expect(value(readTlvString(Buffer.from("Zürich ☀")))).toBe("Zürich ☀");
    expect(value(readTlvString(new Uint8Array()))).toBe("");
    expect(reason(readTlvString(hex("C328")))).toMatch(/not valid UTF-8/);
    expect(encoded({ type: "string", value: "Zürich" })).toBe(Buffer.from("Zürich").toString("hex"));
  });

  test("an object link is two 16-bit ids; 65535:65535 is the null link", () => {
    expect(value(readTlvObjlnk(hex("00420001")))).toEqual({ objectId: 66, instanceId: 1 });
    expect(value(readTlvObjlnk(hex("FFFFFFFF")))).toEqual({ objectId: 65535, instanceId: 65535 });
    expect(reason(readTlvObjlnk(hex("004200")))).toMatch(/4 bytes, not 3/);
    expect(encoded({ type: "objlnk", value: { objectId: 66, instanceId: 1 } })).toBe("00420001");
    expect(reason(encodeTlvValue({ type: "objlnk", value: { objectId: 65536, instanceId: 0 } }))).toMatch(/beyond/);
    expect(reason(encodeTlvValue({ type: "objlnk", value: { objectId: 1, instanceId: -1 } }))).toMatch(/beyond/);
  });

  test("time is a signed integer of seconds in the fewest bytes, refused beyond ±2^53 or when fractional", () => {
    expect(value(readTlvTime(hex("5182428F")))).toBe(1367491215);
    expect(encoded({ type: "time", value: 1367491215 })).toBe("5182428f");
    expect(encoded({ type: "time", value: 4102444800 })).toBe("00000000f4865700");
    expect(value(readTlvTime(hex("FF")))).toBe(-1);
    expect(reason(readTlvTime(hex("7FFFFFFFFFFFFFFF")))).toMatch(/beyond ±2\^53/);
    expect(reason(readTlvTime(hex("000000")))).toMatch(/1, 2, 4 or 8 bytes, not 3/);
    expect(reason(encodeTlvValue({ type: "time", value: 1.5 }))).toMatch(/not whole seconds/);
    expect(reason(encodeTlvValue({ type: "time", value: 2 ** 53 }))).toMatch(/not whole seconds/);
  });

  test("opaque bytes pass through untouched", () => {
    const bytes = hex("00FF10");
    expect(value(readTlvValue(bytes, "opaque"))).toEqual({ type: "opaque", value: bytes });
    expect(encoded({ type: "opaque", value: bytes })).toBe("00ff10");
  });
});

describe("readTlvValue", () => {
  test.each([
    ["string", "4142", { type: "string", value: "AB" }],
    ["corelnk", "3C2F333E", { type: "corelnk", value: "</3>" }],
    ["integer", "FF", { type: "integer", value: -1n }],
    ["unsignedInteger", "FF", { type: "unsignedInteger", value: 255n }],
    ["float", "3FC00000", { type: "float", value: 1.5 }],
    ["boolean", "01", { type: "boolean", value: true }],
    ["time", "5182428F", { type: "time", value: 1367491215 }],
    ["objlnk", "00420000", { type: "objlnk", value: { objectId: 66, instanceId: 0 } }],
  ] as const)("reads %s bytes %s as their type", (type, bytes, typed) => {
    expect(value(readTlvValue(hex(bytes), type))).toEqual(typed);
  });

  test("refuses bytes that do not fit the type, and any value of an executable resource", () => {
    for (const type of ["integer", "unsignedInteger", "float", "boolean", "time", "objlnk"] as ResourceType[])
      expect(readTlvValue(hex("010203"), type).ok).toBe(false);
    expect(reason(readTlvValue(hex("C3"), "string"))).toMatch(/UTF-8/);
    expect(reason(readTlvValue(hex("01"), "none"))).toMatch(/executable/);
  });

  test("every typed value round-trips through its bytes", () => {
    const values: TypedValue[] = [
      { type: "string", value: "" },
      { type: "integer", value: -9223372036854775808n },
      { type: "unsignedInteger", value: 18446744073709551615n },
      { type: "float", value: -0.5 },
      { type: "boolean", value: false },
      { type: "opaque", value: new Uint8Array([1, 2, 3]) },
      { type: "time", value: 0 },
      { type: "objlnk", value: { objectId: 0, instanceId: 65535 } },
      { type: "corelnk", value: '</>;rt="oma.lwm2m"' },
    ];
    for (const v of values) expect(value(readTlvValue(value(encodeTlvValue(v)), v.type))).toEqual(v);
  });
});
