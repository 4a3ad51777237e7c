import { describe, expect, test } from "vitest";
import type { Result } from "./result.js";
import {
  decodeSenmlCbor,
  decodeSenmlJson,
  encodeSenmlCbor,
  encodeSenmlJson,
  MAX_SENML_RECORDS,
  type SenmlRecord,
} from "./senml.js";

const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: Result<unknown>): string => {
  if (r.ok) throw new Error("expected a refusal");
  return r.reason;
};
const text = (r: Result<Uint8Array>) => Buffer.from(value(r)).toString("utf8");
const hexOf = (r: Result<Uint8Array>) => Buffer.from(value(r)).toString("hex");

// The Device object (Read /3/0) in SenML JSON, OMA-TS-LightweightM2M_Core-V1_1 §7.4 (SenML JSON example), one
// record per line as the specification prints it.
const DEVICE_JSON_LINES = [
  '[{"bn":"/3/0/","n":"0","vs":"Open Mobile Alliance"},',
  '{"n":"1","vs":"Lightweight M2M Client"},',
  '{"n":"2","vs":"345000123"},',
  '{"n":"3","vs":"1.0"},',
  '{"n":"6/0","v":1},',
  '{"n":"6/1","v":5},',
  '{"n":"7/0","v":3800},',
  '{"n":"7/1","v":5000},',
  '{"n":"8/0","v":125},',
  '{"n":"8/1","v":900},',
  '{"n":"9","v":100},',
  '{"n":"10","v":15},',
  '{"n":"11/0","v":0},',
  '{"n":"13","v":1367491215},',
  '{"n":"14","vs":"+02:00"},',
  '{"n":"16","vs":"U"}]',
];

// The same read in SenML CBOR as the specification gives it in hex (OMA-TS-LightweightM2M_Core-V1_1_1-20190617-A,
// SenML CBOR example, page 86).
const DEVICE_CBOR =
  "90a321652f332f302f00613003744f70656e204d6f62696c6520416c6c69616e6365a200613103764c69676874776569676874204d324d" +
  "20436c69656e74a20061320369333435303030313233a20061330363312e30a20063362f300201a20063362f310205a20063372f300219" +
  "0ed8a20063372f3102191388a20063382f3002187da20063382f3102190384a2006139021864a200623130020fa2006431312f300200a2" +
  "00623133021a5182428fa20062313403662b30323a3030a200623136036155";

const DEVICE_RECORDS: SenmlRecord[] = [
  { name: "/3/0/0", value: "Open Mobile Alliance" },
  { name: "/3/0/1", value: "Lightweight M2M Client" },
  { name: "/3/0/2", value: "345000123" },
  { name: "/3/0/3", value: "1.0" },
  { name: "/3/0/6/0", value: 1 },
  { name: "/3/0/6/1", value: 5 },
  { name: "/3/0/7/0", value: 3800 },
  { name: "/3/0/7/1", value: 5000 },
  { name: "/3/0/8/0", value: 125 },
  { name: "/3/0/8/1", value: 900 },
  { name: "/3/0/9", value: 100 },
  { name: "/3/0/10", value: 15 },
  { name: "/3/0/11/0", value: 0 },
  { name: "/3/0/13", value: 1367491215 },
  { name: "/3/0/14", value: "+02:00" },
  { name: "/3/0/16", value: "U" },
];

describe("SenML JSON", () => {
  test("decodes the specification's Device read, resolving the base name into every record", () => {
    expect(value(decodeSenmlJson(DEVICE_JSON_LINES.join("\n")))).toEqual(DEVICE_RECORDS);
  });

  test("encodes the Device read back to the specification's records, compactly", () => {
    expect(text(encodeSenmlJson(DEVICE_RECORDS, "/3/0/"))).toBe(DEVICE_JSON_LINES.join(""));
  });

  test("reads every value field: v, vs, vb, vd (base64url) and the LwM2M object link vlo", () => {
    const records = value(
      decodeSenmlJson(
        '[{"bn":"/x/0/","n":"1","v":-1.5},{"n":"2","vb":true},{"n":"3","vd":"AP8Q"},{"n":"4","vlo":"66:1"}]',
      ),
    );
    expect(records).toEqual([
      { name: "/x/0/1", value: -1.5 },
      { name: "/x/0/2", value: true },
      { name: "/x/0/3", value: new Uint8Array([0, 255, 16]) },
      { name: "/x/0/4", value: { objectId: 66, instanceId: 1 } },
    ]);
    expect(text(encodeSenmlJson(records, "/x/0/"))).toBe(
      '[{"bn":"/x/0/","n":"1","v":-1.5},{"n":"2","vb":true},{"n":"3","vd":"AP8Q"},{"n":"4","vlo":"66:1"}]',
    );
  });

  test("vd is accepted in base64url or standard base64, with or without padding", () => {
    for (const vd of ["-_8", "+/8", "-_8=", "+/8="])
      expect(value(decodeSenmlJson(`[{"n":"/1/0/1","vd":"${vd}"}]`))[0]!.value).toEqual(new Uint8Array([0xfb, 0xff]));
    expect(reason(decodeSenmlJson('[{"n":"/1/0/1","vd":"a"}]'))).toMatch(/vd is not base64url/);
    expect(reason(decodeSenmlJson('[{"n":"/1/0/1","vd":"ab$c"}]'))).toMatch(/vd is not base64url/);
    expect(reason(decodeSenmlJson('[{"n":"/1/0/1","vd":5}]'))).toMatch(/vd is not base64url/);
  });

  test("resolves base time into each record's time, and a new bn or bt replaces the old one", () => {
    // A notification with historical values, in the shape of the Core V1_1 §7.4 SenML JSON time example.
    const records = value(
      decodeSenmlJson(
        '[{"bn":"/3303/0/5700","bt":1700000000,"v":22.4,"t":-5},{"v":22.9,"t":-30},{"bn":"/3303/1/5700","bt":1,"v":3}]',
      ),
    );
    expect(records).toEqual([
      { name: "/3303/0/5700", value: 22.4, time: 1699999995 },
      { name: "/3303/0/5700", value: 22.9, time: 1699999970 },
      { name: "/3303/1/5700", value: 3, time: 1 },
    ]);
  });

  test("times below 2^28 are relative to now when now is given (RFC 8428 §4.5.3)", () => {
    const payload = '[{"n":"/3303/0/5700","v":1,"t":-10},{"n":"/3303/0/5700","v":2,"t":1700000000}]';
    expect(value(decodeSenmlJson(payload, { now: 1_800_000_000 })).map((r) => r.time)).toEqual([
      1_799_999_990, 1_700_000_000,
    ]);
    expect(value(decodeSenmlJson(payload)).map((r) => r.time)).toEqual([-10, 1_700_000_000]);
  });

  test("a base value is added to v (RFC 8428 §4.5.4)", () => {
    expect(value(decodeSenmlJson('[{"bn":"/1/0/1","bv":10,"v":1.5},{"v":-1}]')).map((r) => r.value)).toEqual([11.5, 9]);
  });

  test("a name made of bn alone is the whole path; fields nobody uses are ignored", () => {
    expect(value(decodeSenmlJson('[{"bn":"/3/0/9","v":100,"u":"%","bver":10}]'))).toEqual([
      { name: "/3/0/9", value: 100 },
    ]);
  });

  test.each([
    ["", /does not parse/],
    ["[", /does not parse/],
    ['{"n":"a","v":1}', /not an array/],
    ["[1]", /record 0 is not an object/],
    ["[[]]", /record 0 is not an object/],
    ['[{"v":1}]', /record 0 has no name/],
    ['[{"n":"/1/0/1"}]', /record 0 \(\/1\/0\/1\) has no value/],
    ['[{"n":"/1/0/1","v":1,"vs":"1"}]', /several values: v, vs/],
    ['[{"n":"/1/0/1","v":"1"}]', /field v has the wrong type \(string\)/],
    ['[{"n":"/1/0/1","vb":1}]', /field vb has the wrong type/],
    ['[{"n":5,"v":1}]', /field n has the wrong type \(number\)/],
    ['[{"bn":null,"n":"x","v":1}]', /field bn has the wrong type \(null\)/],
    ['[{"n":"/1/0/1","v":1,"t":"now"}]', /field t has the wrong type/],
    ['[{"n":"/1/0/1","vlo":"66"}]', /not <objectId>:<instanceId>/],
    ['[{"n":"/1/0/1","v":1,"foo_":1}]', /field foo_, which must be understood/],
  ])("%j is refused", (payload, why) => {
    expect(reason(decodeSenmlJson(payload))).toMatch(why);
  });

  test("fields named like Object.prototype members are ignored, never called", () => {
    const payload = '[{"n":"/1/0/1","v":1,"valueOf":1,"toString":"x","constructor":{},"hasOwnProperty":2}]';
    expect(value(decodeSenmlJson(payload))).toEqual([{ name: "/1/0/1", value: 1 }]);
    // __proto__ ends in "_", so RFC 8428 §4.4 says it must be understood: refused, like any such field.
    expect(reason(decodeSenmlJson('[{"n":"/1/0/1","v":1,"__proto__":[]}]'))).toMatch(/__proto__, which must be/);
  });

  test("invalid UTF-8, oversized payloads and too many records are refused", () => {
    expect(reason(decodeSenmlJson(Uint8Array.from([0x5b, 0xff, 0x5d])))).toMatch(/does not parse/);
    expect(reason(decodeSenmlJson('[{"n":"/1","v":1}]', { maxBytes: 10 }))).toMatch(/above the limit of 10/);
    const many = JSON.stringify(Array.from({ length: MAX_SENML_RECORDS + 1 }, () => ({ n: "/1/0/1", v: 1 })));
    expect(reason(decodeSenmlJson(many, { maxBytes: 1 << 20 }))).toMatch(`more than ${MAX_SENML_RECORDS}`);
  });

  test("encoding without a base name writes each full name; names outside the base name are refused", () => {
    expect(text(encodeSenmlJson([{ name: "/3/0/9", value: 100, time: 5 }]))).toBe('[{"n":"/3/0/9","v":100,"t":5}]');
    expect(text(encodeSenmlJson([{ name: "/3/0/9", value: 100 }], "/3/0/9"))).toBe('[{"bn":"/3/0/9","v":100}]');
    expect(reason(encodeSenmlJson([{ name: "/4/0/1", value: 1 }], "/3/0/"))).toMatch(/not under the base name/);
    expect(reason(encodeSenmlJson([{ name: "", value: 1 }]))).toMatch(/has no name/);
    expect(reason(encodeSenmlJson([{ name: "/1/0/1", value: NaN }]))).toMatch(/cannot be written/);
  });

  test("a 64-bit integer is written digit for digit", () => {
    expect(text(encodeSenmlJson([{ name: "/1/0/1", value: -(2n ** 63n) }]))).toBe(
      '[{"n":"/1/0/1","v":-9223372036854775808}]',
    );
  });

  test("every value kind round-trips", () => {
    const records: SenmlRecord[] = [
      { name: "/a/0/1", value: 0.1, time: 1367491215 },
      { name: "/a/0/2", value: 'ü"\\' },
      { name: "/a/0/3", value: false },
      { name: "/a/0/4", value: new Uint8Array([1, 2, 3, 4, 5]) },
      { name: "/a/0/5", value: { objectId: 0, instanceId: 65535 } },
    ];
    expect(value(decodeSenmlJson(value(encodeSenmlJson(records, "/a/0/"))))).toEqual(records);
  });
});

describe("SenML CBOR", () => {
  test("decodes the specification's hex Device read into the same records as the JSON example", () => {
    expect(value(decodeSenmlCbor(Buffer.from(DEVICE_CBOR, "hex")))).toEqual(DEVICE_RECORDS);
  });

  test("encodes the Device read to the specification's hex byte for byte", () => {
    expect(hexOf(encodeSenmlCbor(DEVICE_RECORDS, "/3/0/"))).toBe(DEVICE_CBOR);
  });

  test("writes vd as a byte string, vlo under its text label, integers beyond 32 bits as integers", () => {
    const records: SenmlRecord[] = [
      { name: "/1/0/1", value: new Uint8Array([1, 2]) },
      { name: "/1/0/2", value: { objectId: 3, instanceId: 0 } },
      { name: "/1/0/3", value: 2 ** 40, time: 4102444800 },
      { name: "/1/0/4", value: 2n ** 64n - 1n },
      { name: "/1/0/5", value: true },
      { name: "/1/0/6", value: -1.5 },
    ];
    const bytes = hexOf(encodeSenmlCbor(records));
    expect(bytes).toContain("08420102"); // vd: label 8, byte string of 2
    expect(bytes).toContain("63766c6f63333a30"); // "vlo": "3:0"
    expect(bytes).toContain("021b0000010000000000"); // v: 2^40 as a 64-bit unsigned integer, not a float
    expect(bytes).toContain("061af4865700"); // t: 4102444800 fits 32 bits
    expect(bytes).toContain("021bffffffffffffffff"); // v: 2^64-1
    const back = value(decodeSenmlCbor(value(encodeSenmlCbor(records))));
    expect(back).toEqual(records);
  });

  test("integers beyond ±2^53 stay exact as bigint", () => {
    // [{0: "/1/0/1", 2: 2^63-1}]
    const records = value(decodeSenmlCbor(Buffer.from("81a200662f312f302f31021b7fffffffffffffff", "hex")));
    expect(records).toEqual([{ name: "/1/0/1", value: 2n ** 63n - 1n }]);
  });

  test.each([
    ["", /does not parse/],
    ["a0", /not an array/],
    ["8101", /record 0 is not a map/],
    ["81a10001", /field n has the wrong type \(number\)/],
    ["81a1006131", /has no value/],
    ["81a2006131f4f5", /label that is neither/],
    ["81a200613102616e", /field v has the wrong type \(string\)/],
    ["81a2006131086161", /field vd has the wrong type \(string\)/],
    ["81a20061310418ff", /field vb has the wrong type/],
    ["81a2006131ff", /does not parse/],
    ["9a7fffffff", /does not parse/],
    ["81a200613102f7", /wrong type \(undefined\)/],
    ["81a200613102fb7ff8000000000000", /wrong type \(number\)/],
  ])("%s is refused", (hex, why) => {
    expect(reason(decodeSenmlCbor(Buffer.from(hex, "hex")))).toMatch(why);
  });

  test("trailing bytes after the array are refused", () => {
    expect(reason(decodeSenmlCbor(Buffer.from(DEVICE_CBOR + "00", "hex")))).toMatch(/does not parse/);
  });

  test("labels this codec does not use are skipped", () => {
    // {0: "/1/0/1", 2: 1, 1: "Cel", 5: 3}: unit and sum are not LwM2M's
    expect(value(decodeSenmlCbor(Buffer.from("81a400662f312f302f310201016343656c0503", "hex")))).toEqual([
      { name: "/1/0/1", value: 1 },
    ]);
  });

  test("oversized payloads are refused before decoding", () => {
    expect(reason(decodeSenmlCbor(Buffer.from(DEVICE_CBOR, "hex"), { maxBytes: 100 }))).toMatch(
      /above the limit of 100/,
    );
  });

  test("random bytes are decoded or refused, never thrown", () => {
    let seed = 3;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 2000; i++) {
      const input = Uint8Array.from({ length: 1 + (next() % 30) }, () => next() % 256);
      input[0] = 0x80 | (input[0]! & 0x1f);
      expect(typeof decodeSenmlCbor(input).ok).toBe("boolean");
    }
  });
});
