/** encodeWrite: the bytes of a Write in each content format a device takes, and what a write cannot carry. */
import { describe, expect, test } from "vitest";
import { decodeContent, encodeWrite, type WriteValue } from "./content.js";
import { CONTENT_FORMAT as CF, contentFormatName } from "./content-format.js";
import type { Result } from "./result.js";
import { reason, value } from "./result-test-kit.js";
import type { ContentEntry, TypedValue } from "./typed-value.js";

const hexOf = (r: Result<Uint8Array>) => Buffer.from(value(r)).toString("hex").toUpperCase();

const int = (n: number | bigint): TypedValue => ({ type: "integer", value: BigInt(n) });

const str = (s: string): TypedValue => ({ type: "string", value: s });

describe("encodeWrite", () => {
  test("TLV write of a Device instance writes the §6.4.3.1 bytes for its writable resources", () => {
    const values: WriteValue[] = [
      { path: "/3/0/13", value: { type: "time", value: 1367491215 } },
      { path: "/3/0/14", value: str("+02:00") },
    ];
    expect(hexOf(encodeWrite(CF.tlv, "/3/0", values))).toBe("C40D5182428FC60E2B30323A3030");
  });

  test("TLV nests resource instances under their multiple resource, and instances under the object", () => {
    const instances: WriteValue[] = [
      { path: "/3/0/7/0", value: int(3800) },
      { path: "/3/0/7/1", value: int(5000) },
    ];
    expect(hexOf(encodeWrite(CF.tlv, "/3/0/7", instances))).toBe("88070842000ED842011388");
    expect(hexOf(encodeWrite(CF.tlv, "/3/0", instances))).toBe("88070842000ED842011388");
    expect(hexOf(encodeWrite(CF.tlv, "/3/0/7/1", [instances[1]!]))).toBe("42011388");
    expect(hexOf(encodeWrite(CF.tlv, "/1/0/1", [{ path: "/1/0/1", value: int(86400) }]))).toBe("C40100015180");
    // Create /3303 instance 1 with a set point and units.
    const create: WriteValue[] = [
      { path: "/3303/1/5701", value: str("Cel") },
      { path: "/3303/1/5700", value: { type: "float", value: 21.5 } },
    ];
    expect(hexOf(encodeWrite(CF.tlv, "/3303", create))).toBe("08010DE3164543656CE4164441AC0000");
  });

  const everyKind: WriteValue[] = [
    { path: "/1/0/1", value: int(86400) },
    { path: "/1/0/6", value: { type: "boolean", value: true } },
    { path: "/1/0/7", value: str("UQ") },
    { path: "/1/0/10", value: { type: "objlnk", value: { objectId: 11, instanceId: 0 } } },
    { path: "/1/0/12", value: { type: "time", value: 1700000000 } },
  ];
  const everyKindEntries: ContentEntry[] = [
    { path: "/1/0/1", value: 86400 },
    { path: "/1/0/6", value: true },
    { path: "/1/0/7", value: "UQ" },
    { path: "/1/0/10", value: "11:0" },
    { path: "/1/0/12", value: 1700000000 },
  ];

  test.each([
    ["TLV", CF.tlv],
    ["SenML JSON", CF.senmlJson],
    ["SenML CBOR", CF.senmlCbor],
    ["OMA JSON", CF.lwm2mJson],
  ])("a %s write decodes back to the values written", (_, format) => {
    expect(value(decodeContent(format, value(encodeWrite(format, "/1/0", everyKind)), "/1/0"))).toEqual(
      everyKindEntries,
    );
  });

  test("SenML JSON and OMA JSON write bn once; a single resource is named by bn alone", () => {
    expect(Buffer.from(value(encodeWrite(CF.senmlJson, "/1/0", everyKind.slice(0, 2)))).toString()).toBe(
      '[{"bn":"/1/0/","n":"1","v":86400},{"n":"6","vb":true}]',
    );
    expect(Buffer.from(value(encodeWrite(CF.senmlJson, "/1/0/1", everyKind.slice(0, 1)))).toString()).toBe(
      '[{"bn":"/1/0/1","v":86400}]',
    );
    expect(Buffer.from(value(encodeWrite(CF.lwm2mJson, "/1/0/7", [everyKind[2]!]))).toString()).toBe(
      '{"bn":"/1/0/7","e":[{"sv":"UQ"}]}',
    );
  });

  test.each([
    ["text", CF.text, "/3/0/14", str("+02:00"), "2B30323A3030"],
    ["text", CF.text, "/1/0/1", int(86400), "3836343030"],
    ["text", CF.text, "/3311/0/5850", { type: "boolean", value: true }, "31"],
    ["text", CF.text, "/5/0/0", { type: "opaque", value: new Uint8Array([1, 2]) }, "4151493D"],
    ["opaque", CF.opaque, "/5/0/0", { type: "opaque", value: new Uint8Array([0, 255]) }, "00FF"],
    ["CBOR", CF.cbor, "/3303/0/5700", { type: "float", value: 7 }, "FB401C000000000000"],
    ["CBOR", CF.cbor, "/1/0/1", int(86400), "1A00015180"],
    ["CBOR", CF.cbor, "/1/0/1", int(2n ** 63n - 1n), "1B7FFFFFFFFFFFFFFF"],
    ["CBOR", CF.cbor, "/1/0/1", int(-(2n ** 63n)), "3B7FFFFFFFFFFFFFFF"],
    ["CBOR", CF.cbor, "/1/0/10", { type: "objlnk", value: { objectId: 6, instanceId: 0 } }, "63363A30"],
  ] as [string, number, string, TypedValue, string][])("a %s write of %s is %s", (_, format, path, typed, bytes) => {
    expect(hexOf(encodeWrite(format, path, [{ path, value: typed }]))).toBe(bytes);
  });

  test("single-value writes round-trip through decodeContent", () => {
    const cases: [number, string, TypedValue, ContentEntry["value"]][] = [
      [CF.text, "/3303/0/5700", { type: "float", value: -0.125 }, -0.125],
      [CF.text, "/3/0/13", { type: "time", value: 1367491215 }, 1367491215],
      [CF.cbor, "/3311/0/5850", { type: "boolean", value: false }, false],
      [CF.cbor, "/5/0/0", { type: "opaque", value: new Uint8Array([9, 8]) }, "0908"],
      [CF.cbor, "/3/0/13", { type: "time", value: 4102444800 }, 4102444800],
      [CF.opaque, "/5/0/0", { type: "opaque", value: new Uint8Array([7]) }, "07"],
    ];
    for (const [format, path, typed, expected] of cases)
      expect(value(decodeContent(format, value(encodeWrite(format, path, [{ path, value: typed }])), path))).toEqual([
        { path, value: expected },
      ]);
  });

  test("refuses what a write cannot carry", () => {
    const one = [{ path: "/3/0/14", value: str("x") }];
    expect(reason(encodeWrite(CF.tlv, "/3/0", []))).toMatch(/nothing to write/);
    expect(reason(encodeWrite(CF.tlv, "/3/0", [{ path: "/4/0/1", value: int(1) }]))).toMatch(/outside \/3\/0/);
    expect(reason(encodeWrite(CF.tlv, "/3", [{ path: "/3/0", value: int(1) }]))).toMatch(/names no resource/);
    expect(reason(encodeWrite(CF.tlv, "/3/0", [...one, ...one]))).toMatch(/given twice/);
    expect(reason(encodeWrite(CF.text, "/3/0", one))).toMatch(/exactly one value, at the resource \/3\/0 itself/);
    expect(reason(encodeWrite(CF.text, "/3/0/14", [...one, { path: "/3/0/14/0", value: str("y") }]))).toMatch(
      /exactly one value/,
    );
    expect(reason(encodeWrite(CF.opaque, "/3/0/14", one))).toMatch(/string values cannot be sent as opaque/);
    expect(reason(encodeWrite(CF.linkFormat, "/3/0/14", one))).toMatch(/cannot carry a write/);
    expect(reason(encodeWrite(CF.cbor, "/3/0", one))).toMatch(/exactly one value/);
    expect(
      reason(
        encodeWrite(CF.tlv, "/3/0", [
          { path: "/3/0/7", value: int(1) },
          { path: "/3/0/7/0", value: int(2) },
        ]),
      ),
    ).toMatch(/both as one value and as instances/);
    expect(reason(encodeWrite(CF.tlv, "/1/0/1", [{ path: "/1/0/1", value: int(2n ** 63n) }]))).toMatch(
      /\/1\/0\/1: integer .* beyond 64-bit/,
    );
    expect(
      reason(encodeWrite(CF.text, "/3303/0/5700", [{ path: "/3303/0/5700", value: { type: "float", value: NaN } }])),
    ).toMatch(/cannot be written as text/);
    expect(reason(encodeWrite(CF.tlv, "bad", one))).toMatch(/not a plain decimal/);
    expect(reason(encodeWrite(CF.tlv, "/3/0", [{ path: "/3/0/x", value: int(1) }]))).toMatch(/not a plain decimal/);
  });
});

test("content formats have readable names for logs", () => {
  expect(contentFormatName(11542)).toBe("application/vnd.oma.lwm2m+tlv");
  expect(contentFormatName(7)).toBe("content format 7");
});
