import { describe, expect, test } from "vitest";
import type { Result } from "./result.js";
import {
  decodeCborValue,
  decodeOpaque,
  decodePlainText,
  encodeCborValue,
  encodeOpaque,
  encodePlainText,
} from "./single-value.js";
import type { TypedValue } from "./typed-value.js";

const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: Result<unknown>): string => {
  if (r.ok) throw new Error("expected a refusal");
  return r.reason;
};
const utf8 = (t: string) => new TextEncoder().encode(t);
const text = (r: Result<Uint8Array>) => Buffer.from(value(r)).toString();
const hexOf = (r: Result<Uint8Array>) => Buffer.from(value(r)).toString("hex");

describe("plain text", () => {
  test("integers read to the ends of 64-bit, as numbers while exact and as decimal strings beyond", () => {
    expect(value(decodePlainText(utf8("9007199254740991"), "integer"))).toBe(9007199254740991);
    expect(value(decodePlainText(utf8("-9223372036854775808"), "integer"))).toBe("-9223372036854775808");
    expect(value(decodePlainText(utf8("-9223372036854775809"), "integer"))).toBe("-9223372036854775809");
    expect(value(decodePlainText(utf8("18446744073709551615"), "unsignedInteger"))).toBe("18446744073709551615");
    expect(value(decodePlainText(utf8("-1"), "unsignedInteger"))).toBe("-1");
    expect(value(decodePlainText(utf8("007"), "integer"))).toBe("007");
  });

  test("floats read in decimal and exponent forms; anything else stays text", () => {
    for (const [t, n] of [
      ["1.5", 1.5],
      ["-0.25", -0.25],
      [".5", 0.5],
      ["1.", 1],
      ["+2", 2],
      ["3.4028234663852886e38", 3.4028234663852886e38],
      ["1E-3", 0.001],
    ] as const)
      expect(value(decodePlainText(utf8(t), "float"))).toBe(n);
    for (const t of ["NaN", "Infinity", "0x10", "1,5", "", " 1"])
      expect(value(decodePlainText(utf8(t), "float"))).toBe(t);
  });

  test("time is whole seconds; a boolean is 0 or 1; strings and links stay as written", () => {
    expect(value(decodePlainText(utf8("-1"), "time"))).toBe(-1);
    expect(value(decodePlainText(utf8("1.5"), "time"))).toBe("1.5");
    expect(value(decodePlainText(utf8("2"), "boolean"))).toBe("2");
    expect(value(decodePlainText(utf8("</3/0>"), "corelnk"))).toBe("</3/0>");
    expect(value(decodePlainText(utf8(""), "string"))).toBe("");
    expect(value(decodePlainText(utf8("AQ=="), "opaque"))).toBe("01");
    expect(value(decodePlainText(utf8("A"), "opaque"))).toBe("A");
  });

  test("writes each type as text and refuses non-finite floats", () => {
    const cases: [TypedValue, string][] = [
      [{ type: "integer", value: -(2n ** 63n) }, "-9223372036854775808"],
      [{ type: "unsignedInteger", value: 2n ** 64n - 1n }, "18446744073709551615"],
      [{ type: "float", value: 0.1 }, "0.1"],
      [{ type: "float", value: 1e21 }, "1e+21"],
      [{ type: "time", value: 0 }, "0"],
      [{ type: "boolean", value: false }, "0"],
      [{ type: "objlnk", value: { objectId: 1, instanceId: 2 } }, "1:2"],
      [{ type: "string", value: "ü" }, "ü"],
      [{ type: "corelnk", value: "</1>" }, "</1>"],
      [{ type: "opaque", value: new Uint8Array([0xff]) }, "/w=="],
    ];
    for (const [typed, expected] of cases) expect(text(encodePlainText(typed))).toBe(expected);
    expect(reason(encodePlainText({ type: "float", value: Infinity }))).toMatch(/cannot be written as text/);
  });

  test("every written value reads back the same through its type", () => {
    expect(value(decodePlainText(value(encodePlainText({ type: "float", value: 1e21 })), "float"))).toBe(1e21);
    expect(value(decodePlainText(value(encodePlainText({ type: "float", value: 5e-324 })), "float"))).toBe(5e-324);
  });
});

describe("opaque", () => {
  test("reads as hex and writes only opaque values", () => {
    expect(decodeOpaque(new Uint8Array())).toBe("");
    expect(decodeOpaque(Uint8Array.of(0, 1, 254))).toBe("0001fe");
    expect(hexOf(encodeOpaque({ type: "opaque", value: Uint8Array.of(1) }))).toBe("01");
    expect(reason(encodeOpaque({ type: "integer", value: 1n }))).toMatch(/integer values cannot be sent as opaque/);
  });
});

describe("CBOR single value", () => {
  test("integers at the CBOR and 64-bit limits", () => {
    expect(hexOf(encodeCborValue({ type: "integer", value: 23n }))).toBe("17");
    expect(hexOf(encodeCborValue({ type: "integer", value: 24n }))).toBe("1818");
    expect(hexOf(encodeCborValue({ type: "integer", value: -1n }))).toBe("20");
    expect(hexOf(encodeCborValue({ type: "integer", value: 4294967296n }))).toBe("1b0000000100000000");
    expect(hexOf(encodeCborValue({ type: "unsignedInteger", value: 2n ** 64n - 1n }))).toBe("1bffffffffffffffff");
    expect(reason(encodeCborValue({ type: "integer", value: 2n ** 63n }))).toMatch(/out of range/);
    expect(reason(encodeCborValue({ type: "unsignedInteger", value: -1n }))).toMatch(/out of range/);
    expect(reason(encodeCborValue({ type: "time", value: 0.5 }))).toMatch(/not whole seconds/);
    expect(value(decodeCborValue(Buffer.from("3bffffffffffffffff", "hex"), "integer"))).toBe("-18446744073709551616");
    expect(value(decodeCborValue(Buffer.from("1b001fffffffffffff", "hex"), "integer"))).toBe(9007199254740991);
  });

  test("floats are always written as 64-bit floats and read from half, single and double precision", () => {
    expect(hexOf(encodeCborValue({ type: "float", value: 7 }))).toBe("fb401c000000000000");
    expect(value(decodeCborValue(Buffer.from("f93e00", "hex"), "float"))).toBe(1.5);
    expect(value(decodeCborValue(Buffer.from("fa3fc00000", "hex"), "float"))).toBe(1.5);
    expect(value(decodeCborValue(Buffer.from("fb7ff8000000000000", "hex"), "float"))).toBe("NaN");
    for (const v of [0.1, -1e300, 2 ** -1074])
      expect(value(decodeCborValue(value(encodeCborValue({ type: "float", value: v })), "float"))).toBe(v);
  });

  test("maps, undefined, tags other than time, and trailing bytes are refused", () => {
    for (const h of ["a0", "f7", "d8204101", "0101", ""])
      expect(decodeCborValue(Buffer.from(h, "hex"), undefined).ok).toBe(false);
  });
});
