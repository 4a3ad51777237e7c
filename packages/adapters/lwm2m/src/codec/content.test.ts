/**
 * decodeContent: what a device's answer in each LwM2M content format becomes in an uplink (the writes are in
 * content.write.test.ts).
 */
import { describe, expect, test } from "vitest";
import { decodeContent } from "./content.js";
import { CONTENT_FORMAT as CF } from "./content-format.js";
import { reason, value } from "./result-test-kit.js";
import type { ContentEntry } from "./typed-value.js";

const hex = (t: string) => Uint8Array.from(Buffer.from(t.replace(/\s+/g, ""), "hex"));
const utf8 = (t: string) => new TextEncoder().encode(t);

// The Device read of the specifications in each format (see tlv.test.ts, senml.test.ts and lwm2m-json.test.ts for
// where each example comes from).
const DEVICE_TLV =
  "C800144F70656E204D6F62696C6520416C6C69616E6365C801164C69676874776569676874204D324D20436C69656E74C8020933343530" +
  "3030313233C303312E30860641000141010588070842000ED842011388870841007D42010384C10964C10A0F830B410000C40D5182428FC6" +
  "0E2B30323A3030C11055";

const DEVICE_SENML_JSON =
  '[{"bn":"/3/0/","n":"0","vs":"Open Mobile Alliance"},{"n":"1","vs":"Lightweight M2M Client"},' +
  '{"n":"2","vs":"345000123"},{"n":"3","vs":"1.0"},{"n":"6/0","v":1},{"n":"6/1","v":5},{"n":"7/0","v":3800},' +
  '{"n":"7/1","v":5000},{"n":"8/0","v":125},{"n":"8/1","v":900},{"n":"9","v":100},{"n":"10","v":15},' +
  '{"n":"11/0","v":0},{"n":"13","v":1367491215},{"n":"14","vs":"+02:00"},{"n":"16","vs":"U"}]';

const DEVICE_SENML_CBOR =
  "90a321652f332f302f00613003744f70656e204d6f62696c6520416c6c69616e6365a200613103764c69676874776569676874204d324d" +
  "20436c69656e74a20061320369333435303030313233a20061330363312e30a20063362f300201a20063362f310205a20063372f300219" +
  "0ed8a20063372f3102191388a20063382f3002187da20063382f3102190384a2006139021864a200623130020fa2006431312f300200a2" +
  "00623133021a5182428fa20062313403662b30323a3030a200623136036155";

const DEVICE_OMA_JSON = `{"bn":"/3/0/","e":${DEVICE_SENML_JSON.replace('"bn":"/3/0/",', "").replaceAll('"vs"', '"sv"')}}`;

/** The flat list an uplink carries for the Device read. */
const DEVICE_ENTRIES: ContentEntry[] = [
  { path: "/3/0/0", value: "Open Mobile Alliance" },
  { path: "/3/0/1", value: "Lightweight M2M Client" },
  { path: "/3/0/2", value: "345000123" },
  { path: "/3/0/3", value: "1.0" },
  { path: "/3/0/6/0", value: 1 },
  { path: "/3/0/6/1", value: 5 },
  { path: "/3/0/7/0", value: 3800 },
  { path: "/3/0/7/1", value: 5000 },
  { path: "/3/0/8/0", value: 125 },
  { path: "/3/0/8/1", value: 900 },
  { path: "/3/0/9", value: 100 },
  { path: "/3/0/10", value: 15 },
  { path: "/3/0/11/0", value: 0 },
  { path: "/3/0/13", value: 1367491215 },
  { path: "/3/0/14", value: "+02:00" },
  { path: "/3/0/16", value: "U" },
];

describe("decodeContent: the same Device read in every format gives the same uplink content", () => {
  test.each([
    ["TLV 11542", CF.tlv, hex(DEVICE_TLV)],
    ["TLV under its old number 1542", CF.tlvLegacy, hex(DEVICE_TLV)],
    ["SenML JSON 110", CF.senmlJson, utf8(DEVICE_SENML_JSON)],
    ["SenML CBOR 112", CF.senmlCbor, hex(DEVICE_SENML_CBOR)],
    ["OMA JSON 11543", CF.lwm2mJson, utf8(DEVICE_OMA_JSON)],
    ["OMA JSON under its old number 1543", CF.lwm2mJsonLegacy, utf8(DEVICE_OMA_JSON)],
  ])("%s", (_, format, bytes) => {
    expect(value(decodeContent(format, bytes, "/3/0"))).toEqual(DEVICE_ENTRIES);
  });

  test("TLV read of /3 wraps the same resources in instance 0 (§6.4.3.2 A)", () => {
    expect(value(decodeContent(CF.tlv, hex(`080079${DEVICE_TLV}`), "/3"))).toEqual(DEVICE_ENTRIES);
  });

  test("a TLV of one object instance also answers a read of that instance", () => {
    expect(value(decodeContent(CF.tlv, hex(`080079${DEVICE_TLV}`), "/3/0"))).toEqual(DEVICE_ENTRIES);
  });
});

describe("decodeContent: TLV", () => {
  test("a multi-instance read (§6.4.3.2 B) puts each instance's id into the paths", () => {
    const acl = "08000EC10001C101008302417F07C1037F080212C10003C101008702417F0761013601C1037F";
    expect(value(decodeContent(CF.tlv, hex(acl), "/2"))).toEqual([
      { path: "/2/0/0", value: 1 },
      { path: "/2/0/1", value: 0 },
      { path: "/2/0/2/127", value: 7 },
      { path: "/2/0/3", value: 127 },
      { path: "/2/2/0", value: 3 },
      { path: "/2/2/1", value: 0 },
      { path: "/2/2/2/127", value: 7 },
      { path: "/2/2/2/310", value: 1 },
      { path: "/2/2/3", value: 127 },
    ]);
  });

  test("booleans, floats and 16-bit resource ids of IPSO objects are typed by the reusable resources", () => {
    // /3311/0: 5850 On/Off true, 5851 Dimmer 80, 5805 Cumulative active power 12.5 (float32), 5701 "W"
    const payload = "E116DA01 E116DB50 E416AD41480000 E1164557";
    expect(value(decodeContent(CF.tlv, hex(payload), "/3311/0"))).toEqual([
      { path: "/3311/0/5850", value: true },
      { path: "/3311/0/5851", value: 80 },
      { path: "/3311/0/5805", value: 12.5 },
      { path: "/3311/0/5701", value: "W" },
    ]);
  });

  test("values of unknown resources, and values that do not fit their type, are kept as hex", () => {
    expect(value(decodeContent(CF.tlv, hex("C2 01 0102 C1 02 41"), "/10245/0"))).toEqual([
      { path: "/10245/0/1", value: "0102" },
      { path: "/10245/0/2", value: "41" },
    ]);
    // Battery Level (integer) in 3 bytes, Current Time (time) in 3 bytes, a boolean of 2.
    expect(value(decodeContent(CF.tlv, hex("C3 09 000064 C3 0D 010203"), "/3/0"))).toEqual([
      { path: "/3/0/9", value: "000064" },
      { path: "/3/0/13", value: "010203" },
    ]);
    expect(value(decodeContent(CF.tlv, hex("C2 06 0101"), "/1/0"))).toEqual([{ path: "/1/0/6", value: "0101" }]);
  });

  test("a resource read answers with its resource, its multiple resource, or bare resource instances", () => {
    expect(value(decodeContent(CF.tlv, hex("C10964"), "/3/0/9"))).toEqual([{ path: "/3/0/9", value: 100 }]);
    const expected = [
      { path: "/3/0/7/0", value: 3800 },
      { path: "/3/0/7/1", value: 5000 },
    ];
    expect(value(decodeContent(CF.tlv, hex("880708 42000ED8 42011388"), "/3/0/7"))).toEqual(expected);
    expect(value(decodeContent(CF.tlv, hex("42000ED8 42011388"), "/3/0/7"))).toEqual(expected);
  });

  test("a resource instance read answers with that resource instance", () => {
    expect(value(decodeContent(CF.tlv, hex("42011388"), "/3/0/7/1"))).toEqual([{ path: "/3/0/7/1", value: 5000 }]);
  });

  test("64-bit integers beyond ±2^53 come out as decimal strings", () => {
    expect(value(decodeContent(CF.tlv, hex("C8 0A 08 7FFFFFFFFFFFFFFF"), "/3/0"))).toEqual([
      { path: "/3/0/10", value: "9223372036854775807" },
    ]);
  });

  test.each([
    ["C10964", "/3", /holds no object instances/],
    ["080003C10964", "/3/1", /holds instance 0/],
    ["080003C10964080103C10964", "/3/0", /holds instance 0 and more/],
    ["410001410105", "/3/0", /resource instances without their resource/],
    ["C10A0F", "/3/0/9", /holds other entries/],
    ["C10964C10A0F", "/3/0/9", /holds other entries/],
    ["080003C10964", "/3/0/9", /holds other entries/],
    ["42000ED8", "/3/0/7/1", /holds other entries/],
    ["C10964", "/3/0/9/0", /holds other entries/],
    ["C109", "/3/0", /resource 9 at byte 0 has 1 value bytes, 0 left/],
  ])("TLV %s answering %s is refused", (payload, path, why) => {
    expect(reason(decodeContent(CF.tlv, hex(payload), path))).toMatch(why);
  });

  test("an empty TLV is no values", () => {
    expect(value(decodeContent(CF.tlv, new Uint8Array(), "/3/0"))).toEqual([]);
  });
});

describe("decodeContent: single values", () => {
  test.each([
    ["/3/0/0", "Open Mobile Alliance", "Open Mobile Alliance"],
    ["/3/0/9", "100", 100],
    ["/3/0/9", "-100", -100],
    ["/3/0/9", "9223372036854775807", "9223372036854775807"],
    ["/3303/0/5700", "22.5", 22.5],
    ["/3303/0/5700", "-1e3", -1000],
    ["/3311/0/5850", "1", true],
    ["/3311/0/5850", "0", false],
    ["/3/0/13", "1367491215", 1367491215],
    ["/5/0/0", "AQIDBAU=", "0102030405"],
    ["/1/0/10", "11:0", "11:0"],
    ["/10245/0/1", "anything", "anything"],
  ])("plain text at %s %j is %j", (path, text, expected) => {
    expect(value(decodeContent(CF.text, utf8(text), path))).toEqual([{ path, value: expected }]);
  });

  test("plain text that does not read as its type is kept as text, not refused", () => {
    expect(value(decodeContent(CF.text, utf8("full"), "/3/0/9"))).toEqual([{ path: "/3/0/9", value: "full" }]);
    expect(value(decodeContent(CF.text, utf8("true"), "/3311/0/5850"))).toEqual([
      { path: "/3311/0/5850", value: "true" },
    ]);
    expect(value(decodeContent(CF.text, utf8("9223372036854775808"), "/3/0/9"))[0]!.value).toBe("9223372036854775808");
  });

  test("opaque bytes come out as hex", () => {
    expect(value(decodeContent(CF.opaque, hex("00FF7F"), "/5/0/0"))).toEqual([{ path: "/5/0/0", value: "00ff7f" }]);
  });

  test.each([
    ["/3303/0/5700", "fb4036800000000000", 22.5],
    ["/3/0/9", "1864", 100],
    ["/3/0/9", "1bffffffffffffffff", "18446744073709551615"],
    ["/3/0/0", "63414243", "ABC"],
    ["/3311/0/5850", "f5", true],
    ["/5/0/0", "43010203", "010203"],
    ["/3/0/13", "c11a5182428f", 1367491215],
    ["/1/0/10", "63363a30", "6:0"],
  ])("CBOR at %s %s is %j", (path, bytes, expected) => {
    expect(value(decodeContent(CF.cbor, hex(bytes), path))).toEqual([{ path, value: expected }]);
  });

  test("CBOR that is no single value is refused", () => {
    expect(reason(decodeContent(CF.cbor, hex("820102"), "/3/0/9"))).toMatch(/not a single resource value/);
    expect(reason(decodeContent(CF.cbor, hex("f6"), "/3/0/9"))).toMatch(/not a single resource value/);
    expect(reason(decodeContent(CF.cbor, hex("18"), "/3/0/9"))).toMatch(/does not parse/);
    expect(reason(decodeContent(CF.cbor, hex("6136"), "/1/0/10"))).toMatch(/not objectId:instanceId/);
  });

  test("single-value formats are refused above resource level, and invalid UTF-8 text is refused", () => {
    for (const format of [CF.text, CF.opaque, CF.cbor])
      expect(reason(decodeContent(format, utf8("1"), "/3/0"))).toMatch(/carries one resource value/);
    expect(reason(decodeContent(CF.text, hex("C328"), "/3/0/0"))).toMatch(/not valid UTF-8/);
  });
});

describe("decodeContent: SenML and JSON", () => {
  test("carries record times into the entries (notifications with history)", () => {
    const payload = '[{"bn":"/3303/0/5700","bt":1700000000,"v":22.4,"t":-5},{"v":22.9}]';
    expect(value(decodeContent(CF.senmlJson, utf8(payload), "/3303/0"))).toEqual([
      { path: "/3303/0/5700", value: 22.4, time: 1699999995 },
      { path: "/3303/0/5700", value: 22.9, time: 1700000000 },
    ]);
  });

  test("bytes, object links and booleans become hex, '3:0' and booleans", () => {
    const payload = '[{"bn":"/65/0/","n":"0/0","vlo":"66:0"},{"n":"3","vd":"AQI"},{"n":"4","vb":true}]';
    expect(value(decodeContent(CF.senmlJson, utf8(payload), "/65/0"))).toEqual([
      { path: "/65/0/0/0", value: "66:0" },
      { path: "/65/0/3", value: "0102" },
      { path: "/65/0/4", value: true },
    ]);
  });

  test("an OMA JSON sv of an opaque resource is base64 and comes out as hex, like every opaque value", () => {
    const payload = '{"bn":"/5/0/","e":[{"n":"0","sv":"AQIDBAU="},{"n":"6","sv":"AQIDBAU="}]}';
    expect(value(decodeContent(CF.lwm2mJson, utf8(payload), "/5/0"))).toEqual([
      { path: "/5/0/0", value: "0102030405" },
      { path: "/5/0/6", value: "AQIDBAU=" },
    ]);
  });

  test("a trailing slash on a single resource's base name is tolerated", () => {
    expect(value(decodeContent(CF.senmlJson, utf8('[{"bn":"/3/0/9/","v":100}]'), "/3/0/9"))).toEqual([
      { path: "/3/0/9", value: 100 },
    ]);
  });

  test("records outside the answered path, above resource level or with bad names are refused", () => {
    const senml = (p: string, path = "/3/0") => decodeContent(CF.senmlJson, utf8(p), path);
    expect(reason(senml('[{"n":"/4/0/1","v":1}]'))).toMatch(/lies outside \/3\/0/);
    expect(reason(senml('[{"n":"/3/0","v":1}]'))).toMatch(/names no resource/);
    expect(reason(senml('[{"n":"/3/0/x","v":1}]'))).toMatch(/record name "\/3\/0\/x"/);
    expect(reason(senml('[{"n":"/3/0/1","v":1}'))).toMatch(/does not parse/);
  });
});

describe("decodeContent: link format and refusals", () => {
  test("a Discover answer is one entry per link with its attributes as text", () => {
    const payload = "</3/0>;pmin=10;pmax=60,</3/0/1>,</3/0/7>;dim=2";
    expect(value(decodeContent(CF.linkFormat, utf8(payload), "/3/0"))).toEqual([
      { path: "/3/0", value: "pmin=10;pmax=60" },
      { path: "/3/0/1", value: "" },
      { path: "/3/0/7", value: "dim=2" },
    ]);
    expect(reason(decodeContent(CF.linkFormat, utf8("</3/0"), "/3/0"))).toMatch(/no closing/);
  });

  test("formats LwM2M does not use are refused by name", () => {
    expect(reason(decodeContent(50, utf8("{}"), "/3/0"))).toMatch(/content format 50 is not a format/);
  });

  test("a bad base path and an oversized payload are refused before decoding", () => {
    expect(reason(decodeContent(CF.tlv, hex("C10964"), "/3/0/"))).toMatch(/empty/);
    expect(reason(decodeContent(CF.tlv, new Uint8Array(70_000), "/3/0"))).toMatch(/70000 bytes is above the limit/);
    expect(reason(decodeContent(CF.text, utf8("12345"), "/3/0/0", { maxBytes: 4 }))).toMatch(/above the limit of 4/);
  });

  test("a custom resource table types values the built-in one does not know", () => {
    const lookup = () => ({ id: 1, name: "x", type: "integer" as const, operations: "R" as const, multiple: false });
    expect(value(decodeContent(CF.tlv, hex("C10164"), "/10245/0", { lookup }))).toEqual([
      { path: "/10245/0/1", value: 100 },
    ]);
  });

  test("garbage in every format is refused or decoded, never thrown", () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const formats = Object.values(CF);
    for (let i = 0; i < 3000; i++) {
      const bytes = Uint8Array.from({ length: next() % 40 }, () => next() % 256);
      const format = formats[i % formats.length]!;
      expect(typeof decodeContent(format, bytes, ["/3/0", "/3", "/3/0/9", "/3/0/7/1"][i % 4]!).ok).toBe("boolean");
    }
  });
});
