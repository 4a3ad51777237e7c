import { describe, expect, test } from "vitest";
import type { Result } from "./result.js";
import { formatObjectLink, parseObjectLink, toContentValue, typedFromJson, type TypedValue } from "./typed-value.js";

const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: Result<unknown>): string => {
  if (r.ok) throw new Error("expected a refusal");
  return r.reason;
};

describe("toContentValue", () => {
  test.for([
    [{ type: "integer", value: 42n }, 42],
    [{ type: "integer", value: -(2n ** 53n) + 1n }, -9007199254740991],
    [{ type: "integer", value: 2n ** 53n }, "9007199254740992"],
    [{ type: "integer", value: -(2n ** 63n) }, "-9223372036854775808"],
    [{ type: "unsignedInteger", value: 2n ** 64n - 1n }, "18446744073709551615"],
    [{ type: "float", value: 22.5 }, 22.5],
    [{ type: "float", value: NaN }, "NaN"],
    [{ type: "float", value: -Infinity }, "-Infinity"],
    [{ type: "boolean", value: true }, true],
    [{ type: "string", value: "U" }, "U"],
    [{ type: "opaque", value: new Uint8Array([0, 0xab, 0x10]) }, "00ab10"],
    [{ type: "time", value: 1367491215 }, 1367491215],
    [{ type: "objlnk", value: { objectId: 66, instanceId: 0 } }, "66:0"],
    [{ type: "corelnk", value: "</3/0>" }, "</3/0>"],
  ] as [TypedValue, unknown][])("%o goes into an uplink as %j", ([typed, expected]) => {
    expect(toContentValue(typed)).toEqual(expected);
  });
});

describe("object links as text", () => {
  test("parse and format 'objectId:instanceId'", () => {
    expect(value(parseObjectLink("66:0"))).toEqual({ objectId: 66, instanceId: 0 });
    expect(formatObjectLink({ objectId: 65535, instanceId: 65535 })).toBe("65535:65535");
    for (const bad of ["66", "66:", ":0", "66:0:1", "65536:0", "1:65536", "01:2", "-1:0", "a:b", " 1:2"])
      expect(reason(parseObjectLink(bad))).toMatch(/not <objectId>:<instanceId>/);
  });
});

describe("typedFromJson", () => {
  test("with the resource type known, converts what a command may send", () => {
    expect(value(typedFromJson("+02:00", "string"))).toEqual({ type: "string", value: "+02:00" });
    expect(value(typedFromJson(12, "string"))).toEqual({ type: "string", value: "12" });
    expect(value(typedFromJson(100, "integer"))).toEqual({ type: "integer", value: 100n });
    expect(value(typedFromJson("-9223372036854775808", "integer"))).toEqual({
      type: "integer",
      value: -(2n ** 63n),
    });
    expect(value(typedFromJson("18446744073709551615", "unsignedInteger"))).toEqual({
      type: "unsignedInteger",
      value: 2n ** 64n - 1n,
    });
    expect(value(typedFromJson(21.5, "float"))).toEqual({ type: "float", value: 21.5 });
    expect(value(typedFromJson("21.5", "float"))).toEqual({ type: "float", value: 21.5 });
    expect(value(typedFromJson(7, "float"))).toEqual({ type: "float", value: 7 });
    for (const t of [true, 1, "1", "true"])
      expect(value(typedFromJson(t, "boolean"))).toEqual({ type: "boolean", value: true });
    for (const f of [false, 0, "0", "false"])
      expect(value(typedFromJson(f, "boolean"))).toEqual({ type: "boolean", value: false });
    expect(value(typedFromJson(1367491215, "time"))).toEqual({ type: "time", value: 1367491215 });
    expect(value(typedFromJson("1367491215", "time"))).toEqual({ type: "time", value: 1367491215 });
    expect(value(typedFromJson("66:1", "objlnk"))).toEqual({ type: "objlnk", value: { objectId: 66, instanceId: 1 } });
    expect(value(typedFromJson("00ff", "opaque"))).toEqual({ type: "opaque", value: Buffer.from([0, 255]) });
    expect(value(typedFromJson("</3/0>", "corelnk"))).toEqual({ type: "corelnk", value: "</3/0>" });
  });

  test("refuses what does not fit the type, with the value shown", () => {
    expect(reason(typedFromJson(1.5, "integer"))).toMatch(/1.5 is no whole number/);
    expect(reason(typedFromJson(2 ** 53, "integer"))).toMatch(/no whole number/);
    expect(reason(typedFromJson("9223372036854775808", "integer"))).toMatch(/out of range for integer/);
    expect(reason(typedFromJson(-1, "unsignedInteger"))).toMatch(/out of range for unsignedInteger/);
    expect(reason(typedFromJson("12abc", "float"))).toMatch(/no number/);
    expect(reason(typedFromJson("", "float"))).toMatch(/no number/);
    expect(reason(typedFromJson(Infinity, "float"))).toMatch(/no number/);
    expect(reason(typedFromJson("yes", "boolean"))).toMatch(/no boolean/);
    expect(reason(typedFromJson(1.5, "time"))).toMatch(/no time/);
    expect(reason(typedFromJson(66, "objlnk"))).toMatch(/no object link/);
    expect(reason(typedFromJson("66-1", "objlnk"))).toMatch(/not <objectId>:<instanceId>/);
    expect(reason(typedFromJson("abc", "opaque"))).toMatch(/no hex string/);
    expect(reason(typedFromJson({}, "string"))).toMatch(/no string/);
    expect(reason(typedFromJson(1, "none"))).toMatch(/executable/);
  });

  test("with the type unknown, the JSON type decides", () => {
    expect(value(typedFromJson(true, undefined))).toEqual({ type: "boolean", value: true });
    expect(value(typedFromJson(5, undefined))).toEqual({ type: "integer", value: 5n });
    expect(value(typedFromJson(5.5, undefined))).toEqual({ type: "float", value: 5.5 });
    expect(value(typedFromJson("x", undefined))).toEqual({ type: "string", value: "x" });
    expect(reason(typedFromJson(null, undefined))).toMatch(/null is no string, number or boolean/);
    expect(reason(typedFromJson([1], undefined))).toMatch(/no string, number or boolean/);
  });

  test("values JSON cannot show are refused, never thrown", () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(reason(typedFromJson(circular, "string"))).toMatch(/no string/);
    expect(reason(typedFromJson(1n, "float"))).toMatch(/no number/);
    expect(reason(typedFromJson(undefined, undefined))).toMatch(/undefined is no string/);
  });
});
