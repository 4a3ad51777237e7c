import { describe, expect, test } from "vitest";
import { decodeLwm2mJson, encodeLwm2mJson } from "./lwm2m-json.js";
import type { Result } from "./result.js";
import type { SenmlRecord } from "./senml.js";

const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: Result<unknown>): string => {
  if (r.ok) throw new Error("expected a refusal");
  return r.reason;
};
const text = (r: Result<Uint8Array>) => Buffer.from(value(r)).toString("utf8");

// OMA-TS-LightweightM2M-V1_0 §6.4.4: the JSON example of Read /3/0, printed over several lines.
const DEVICE_LINES = [
  '{"bn":"/3/0/",',
  '"e":[',
  '{"n":"0","sv":"Open Mobile Alliance"},',
  '{"n":"1","sv":"Lightweight M2M Client"},',
  '{"n":"2","sv":"345000123"},',
  '{"n":"3","sv":"1.0"},',
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
  '{"n":"14","sv":"+02:00"},',
  '{"n":"16","sv":"U"}]',
  "}",
];

describe("OMA LwM2M JSON", () => {
  test("decodes the §6.4.4 Device example, names resolved against bn", () => {
    const records = value(decodeLwm2mJson(DEVICE_LINES.join("\n"), "/3/0"));
    expect(records).toHaveLength(16);
    expect(records[0]).toEqual({ name: "/3/0/0", value: "Open Mobile Alliance" });
    expect(records[5]).toEqual({ name: "/3/0/6/1", value: 5 });
    expect(records[13]).toEqual({ name: "/3/0/13", value: 1367491215 });
    expect(records[15]).toEqual({ name: "/3/0/16", value: "U" });
  });

  test("encodes the Device example back byte for byte (compactly)", () => {
    const records = value(decodeLwm2mJson(DEVICE_LINES.join("\n"), "/3/0"));
    expect(text(encodeLwm2mJson(records, "/3/0/"))).toBe(DEVICE_LINES.join(""));
  });

  test("reads bv as a boolean and ov as an object link, and writes them back", () => {
    const payload = '{"bn":"/65/0/","e":[{"n":"0/0","ov":"66:0"},{"n":"1","bv":false}]}';
    const records = value(decodeLwm2mJson(payload, "/65/0"));
    expect(records).toEqual([
      { name: "/65/0/0/0", value: { objectId: 66, instanceId: 0 } },
      { name: "/65/0/1", value: false },
    ]);
    expect(text(encodeLwm2mJson(records, "/65/0/"))).toBe(payload);
  });

  test("without bn, names are relative to the request path", () => {
    expect(value(decodeLwm2mJson('{"e":[{"n":"9","v":100},{"n":"7/1","v":1}]}', "/3/0"))).toEqual([
      { name: "/3/0/9", value: 100 },
      { name: "/3/0/7/1", value: 1 },
    ]);
    expect(value(decodeLwm2mJson('{"e":[{"v":100}]}', "/3/0/9"))).toEqual([{ name: "/3/0/9", value: 100 }]);
  });

  test("time is bt + t; times below 2^28 become absolute when now is given", () => {
    // In the shape of the historical-values notification of §6.4.4 (same base time and offsets).
    const payload = '{"bn":"/3303/0/5700","bt":25462634,"e":[{"v":22.4,"t":-5},{"v":22.9,"t":-30}]}';
    expect(value(decodeLwm2mJson(payload, "/3303/0/5700")).map((r) => r.time)).toEqual([25462629, 25462604]);
    expect(value(decodeLwm2mJson(payload, "/3303/0/5700", { now: 1e9 })).map((r) => r.time)).toEqual([
      1e9 + 25462629,
      1e9 + 25462604,
    ]);
    const absolute = '{"bn":"/1/0/1","bt":1700000000,"e":[{"v":1}]}';
    expect(value(decodeLwm2mJson(absolute, "/1/0/1", { now: 1e9 }))[0]!.time).toBe(1700000000);
  });

  test("v written as a numeric string, as the 1.0 candidate drafts printed it, is read as a number", () => {
    expect(value(decodeLwm2mJson('{"e":[{"n":"9","v":"100"},{"n":"1","v":"-2.5e1"}]}', "/3/0"))).toEqual([
      { name: "/3/0/9", value: 100 },
      { name: "/3/0/1", value: -25 },
    ]);
  });

  test("bytes are written as base64 in sv, since the format has no bytes value", () => {
    expect(text(encodeLwm2mJson([{ name: "/5/0/0", value: new Uint8Array([1, 2, 3, 4, 5]) }], "/5/0/0"))).toBe(
      '{"bn":"/5/0/0","e":[{"sv":"AQIDBAU="}]}',
    );
    expect(text(encodeLwm2mJson([{ name: "/1/0/1", value: 2n ** 63n - 1n, time: 5 }], "/1/0/"))).toBe(
      '{"bn":"/1/0/","e":[{"n":"1","v":9223372036854775807,"t":5}]}',
    );
  });

  test.each([
    ["", /does not parse/],
    ["[]", /not an object/],
    ['{"bn":"/3/0/"}', /no resource array e/],
    ['{"bn":3,"e":[]}', /bn is not a string/],
    ['{"bt":"x","e":[]}', /bt is not a number/],
    ['{"e":[1]}', /record 0 is not an object/],
    ['{"e":[{"n":1,"v":1}]}', /n is not a string/],
    ['{"e":[{"n":"1"}]}', /has no value/],
    ['{"e":[{"n":"1","v":1,"sv":"1"}]}', /several values: v, sv/],
    ['{"e":[{"n":"1","v":"abc"}]}', /v is not a number/],
    ['{"e":[{"n":"1","v":null}]}', /has no value|v is not a number/],
    ['{"e":[{"n":"1","bv":"true"}]}', /bv is not a boolean/],
    ['{"e":[{"n":"1","sv":5}]}', /sv is not a string/],
    ['{"e":[{"n":"1","ov":"66"}]}', /not <objectId>:<instanceId>/],
    ['{"e":[{"n":"1","ov":66}]}', /ov is not a string/],
    ['{"e":[{"n":"1","v":1,"t":"x"}]}', /t is not a number/],
  ])("%j is refused", (payload, why) => {
    expect(reason(decodeLwm2mJson(payload, "/3/0"))).toMatch(why);
  });

  test("oversized payloads, too many records and invalid UTF-8 are refused", () => {
    expect(reason(decodeLwm2mJson('{"e":[]}', "/3", { maxBytes: 4 }))).toMatch(/above the limit of 4/);
    expect(reason(decodeLwm2mJson('{"e":[{"v":1},{"v":2}]}', "/3/0/1", { maxRecords: 1 }))).toMatch(/more than 1/);
    expect(reason(decodeLwm2mJson(Uint8Array.from([0x7b, 0xff, 0x7d]), "/3"))).toMatch(/does not parse/);
  });

  test("encoding refuses names outside the base name and non-finite numbers", () => {
    expect(reason(encodeLwm2mJson([{ name: "/4/0/1", value: 1 }], "/3/0/"))).toMatch(/not under the base name/);
    expect(reason(encodeLwm2mJson([{ name: "/3/0/1", value: Infinity }], "/3/0/"))).toMatch(/cannot be written/);
  });

  test("every value kind round-trips", () => {
    const records: SenmlRecord[] = [
      { name: "/a/0/1", value: -0.25, time: 1367491215 },
      { name: "/a/0/2", value: 'q"\\' },
      { name: "/a/0/3", value: true },
      { name: "/a/0/4", value: { objectId: 65535, instanceId: 65535 } },
    ];
    expect(value(decodeLwm2mJson(value(encodeLwm2mJson(records, "/a/0/")), "/a/0"))).toEqual(records);
  });
});
