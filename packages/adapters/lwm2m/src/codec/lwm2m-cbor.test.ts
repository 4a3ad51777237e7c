/**
 * LwM2M CBOR (11544, LwM2M 1.2 Core §7.4.6). Where the examples come from:
 * - DEVICE is the specifications' Device object example (the instance of the TLV, SenML and OMA JSON examples, see
 *   content.test.ts) written in LwM2M CBOR by the rules of §7.4.6: one nested map, `[3, 0]` as the instance key,
 *   multiple resources as maps of their instances; its bytes were checked by hand against RFC 8949.
 * - The `/13/26/…` vectors are the byte strings of an independent client implementation's LwM2M CBOR input tests
 *   (AVSystem Anjay, tests/core/io/lwm2m_cbor_in.c): the same path spelled as one array key, as nested single ids,
 *   as nested one-element arrays, with indefinite-length maps and arrays, and a decimal fraction (tag 4).
 */
import { describe, expect, test } from "vitest";
import { decodeContent, encodeWrite } from "./content.js";
import { CONTENT_FORMAT as CF } from "./content-format.js";
import {
  decodeLwm2mCbor,
  decodeLwm2mCborContent,
  decodeLwm2mCborPaths,
  encodeLwm2mCbor,
  type Lwm2mCborValue,
} from "./lwm2m-cbor.js";
import { parseObjectPath, type ObjectPath } from "./object-path.js";
import { reason, value } from "./result-test-kit.js";
import type { ContentEntry, TypedValue } from "./typed-value.js";

const hex = (t: string) => Uint8Array.from(Buffer.from(t.replace(/\s+/g, ""), "hex"));
const toHex = (b: Uint8Array) => Buffer.from(b).toString("hex").toUpperCase();
const path = (text: string): ObjectPath => value(parseObjectPath(text));
const int = (n: number): TypedValue => ({ type: "integer", value: BigInt(n) });
const str = (s: string): TypedValue => ({ type: "string", value: s });

// {[3, 0]: {0: "Open Mobile Alliance", 1: "Lightweight M2M Client", 2: "345000123", 3: "1.0", 6: {0: 1, 1: 5},
//  7: {0: 3800, 1: 5000}, 8: {0: 125, 1: 900}, 9: 100, 10: 15, 11: {0: 0}, 13: 1367491215, 14: "+02:00", 16: "U"}}
const DEVICE = `A1 82 03 00 AD
  00 74 4F70656E204D6F62696C6520416C6C69616E6365
  01 76 4C69676874776569676874204D324D20436C69656E74
  02 69 333435303030313233
  03 63 312E30
  06 A2 00 01 01 05
  07 A2 00 19 0ED8 01 19 1388
  08 A2 00 18 7D 01 19 0384
  09 18 64
  0A 0F
  0B A1 00 00
  0D 1A 5182428F
  0E 66 2B30323A3030
  10 61 55`;

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

describe("LwM2M CBOR decoding: paths as nested maps or array keys", () => {
  test("the Device example reads into the same entries as its TLV and SenML forms", () => {
    expect(value(decodeContent(CF.lwm2mCbor, hex(DEVICE), "/3/0"))).toEqual(DEVICE_ENTRIES);
    expect(value(decodeContent(CF.lwm2mCbor, hex(DEVICE), "/3"))).toEqual(DEVICE_ENTRIES);
  });

  test.each([
    ["one array key {[13, 26, 1]: 42}", "A1 83 0D 18 1A 01 18 2A", [["/13/26/1", 42]]],
    ["indefinite map and array {_ [_ 13, 26, 1]: 42}", "BF 9F 0D 18 1A 01 FF 18 2A FF", [["/13/26/1", 42]]],
    ["nested ids {13: {26: {1: 42}}}", "A1 0D A1 18 1A A1 01 18 2A", [["/13/26/1", 42]]],
    ["nested one-id arrays {[13]: {[26]: {[1]: 42}}}", "A1 81 0D A1 81 18 1A A1 81 01 18 2A", [["/13/26/1", 42]]],
    ["a boolean {[13, 26, 1]: true}", "A1 83 0D 18 1A 01 F5", [["/13/26/1", true]]],
    [
      "a decimal fraction at a resource instance {[13]: {[26]: {[1]: {[2]: 4([-1, 45])}}}}",
      "A1 81 0D A1 81 18 1A A1 81 01 A1 81 02 C4 82 20 18 2D",
      [["/13/26/1/2", 4.5]],
    ],
    [
      "an instance key and a full path side by side {[13, 26]: {1: 42}, [13, 26, 2]: 21}",
      "A2 82 0D 18 1A A1 01 18 2A 83 0D 18 1A 02 15",
      [
        ["/13/26/1", 42],
        ["/13/26/2", 21],
      ],
    ],
  ])("%s", (_, bytes, expected) => {
    const entries = value(decodeContent(CF.lwm2mCbor, hex(bytes), "/13/26"));
    expect(entries.map((e) => [e.path, e.value])).toEqual(expected);
  });
});

describe("LwM2M CBOR decoding types values by the object model", () => {
  test.each([
    ["time with tag 1 (/3/0/13)", "A1 83 03 00 0D C1 1A 5182428F", 1367491215],
    ["time as a plain integer", "A1 83 03 00 0D 1A 5182428F", 1367491215],
    ["opaque bytes as hex (/5/0/0)", "A1 83 05 00 00 43 010203", "010203"],
    ["a 64-bit integer beyond 2^53 as decimal text", "A1 83 03 00 09 1B 7FFFFFFFFFFFFFFF", "9223372036854775807"],
    ["a float (/3303/0/5700)", "A1 83 19 0CE7 00 19 1644 FB 4036800000000000", 22.5],
    ["a boolean resource given as 1 (/1/0/6)", "A1 83 01 00 06 01", true],
    ["a negative integer", "A1 83 03 00 09 20", -1],
  ])("%s", (_, bytes, expected) => {
    const [entry] = value(decodeLwm2mCborContent(hex(bytes), undefined));
    expect(entry!.value).toEqual(expected);
  });
});

describe("LwM2M CBOR decoding refuses what is no LwM2M CBOR, with the reason", () => {
  test.each([
    ["a payload that is no map", "80", /not a map of paths/],
    ["a text key", "A1 61 61 01", /"a" is not an id/],
    ["a negative key", "A1 20 01", /-1 is not an id/],
    ["a key above 65535", "A1 1A 00010000 01", /65536 is not an id/],
    ["an empty array key", "A1 80 01", /empty array/],
    ["five levels", "A1 85 01 02 03 04 05 00", /more than 4 levels/],
    ["an array as a value", "A1 83 03 00 00 80", /\/3\/0\/0 is an array/],
    ["a path given twice", "A2 83 03 00 00 01 83 03 00 00 02", /\/3\/0\/0 is given twice/],
    ["a value with values below it", "A2 83 03 00 07 01 84 03 00 07 00 02", /\/3\/0\/7 has a value and values below/],
    ["a cut-off payload", "A1 83 03", /does not parse/],
    ["bytes after the map", "A1 83 03 00 00 01 01", /does not parse/],
  ])("%s", (_, bytes, expected) => {
    expect(reason(decodeLwm2mCbor(hex(bytes)))).toMatch(expected);
  });

  test.each([
    ["a value outside the path read", "A1 83 04 00 00 01", /\/4\/0\/0 lies outside \/3\/0/],
    ["a value at an instance", "A1 82 03 00 01", /\/3\/0 names no resource/],
    ["a null value in an answer", "A1 83 03 00 00 F6", /\/3\/0\/0 has no value/],
  ])("%s", (_, bytes, expected) => {
    expect(reason(decodeContent(CF.lwm2mCbor, hex(bytes), "/3/0"))).toMatch(expected);
  });

  test("more values than the limit are refused", () => {
    expect(reason(decodeLwm2mCbor(hex("A2 83 03 00 00 01 83 03 00 01 02"), 1))).toMatch(/more than 1 values/);
  });
});

describe("LwM2M CBOR encoding", () => {
  const v = (p: string, typed: TypedValue | null): Lwm2mCborValue => ({ path: path(p), value: typed });
  test.each([
    ["one resource folds its path into one array key", [v("/3/0/9", int(87))], "A1 83 03 00 09 18 57"],
    [
      "resources of one instance share its key",
      [v("/3/0/9", int(87)), v("/3/0/14", str("+02:00"))],
      "A1 82 03 00 A2 09 18 57 0E 66 2B30323A3030",
    ],
    [
      "a multiple resource is a map of its instances",
      [v("/3/0/7/0", int(3800)), v("/3/0/7/1", int(5000))],
      "A1 83 03 00 07 A2 00 19 0ED8 01 19 1388",
    ],
    [
      "a whole float stays a 64-bit float",
      [v("/3303/0/5700", { type: "float", value: 7 })],
      "A1 83 19 0CE7 00 19 1644 FB 401C000000000000",
    ],
    [
      "values of two objects (a composite write)",
      [v("/3/0/9", int(87)), v("/3303/0/5700", { type: "float", value: 22.5 })],
      "A2 83 03 00 09 18 57 83 19 0CE7 00 19 1644 FB 4036800000000000",
    ],
    [
      "opaque as bytes, time as an integer, an object link as text",
      [
        v("/5/0/0", { type: "opaque", value: Uint8Array.of(1, 2, 3) }),
        v("/3/0/13", { type: "time", value: 1367491215 }),
        v("/2/0/2/1", { type: "objlnk", value: { objectId: 3, instanceId: 0 } }),
      ],
      "A3 83 05 00 00 43 010203 83 03 00 0D 1A 5182428F 84 02 00 02 01 63 333A30",
    ],
    [
      "a composite path list gives each path a null value",
      [v("/3/0/0", null), v("/3303/0", null)],
      "A2 83 03 00 00 F6 82 19 0CE7 00 F6",
    ],
  ])("%s", (_, values, expected) => {
    expect(toHex(value(encodeLwm2mCbor(values)))).toBe(expected.replace(/\s+/g, ""));
  });

  test("a composite path list reads back as its paths", () => {
    const bytes = value(encodeLwm2mCbor([v("/3/0/0", null), v("/3303", null)]));
    expect(value(decodeLwm2mCborPaths(bytes))).toEqual(["/3/0/0", "/3303"]);
    expect(reason(decodeLwm2mCborPaths(hex("A1 83 03 00 00 01")))).toMatch(/has a value, not null/);
  });

  test.each([
    ["a path given twice", [v("/3/0/9", int(1)), v("/3/0/9", int(2))], /given twice/],
    ["a value and a value below it", [v("/3/0/7", int(1)), v("/3/0/7/0", int(2))], /below a path that has a value/],
    ["a value above values", [v("/3/0/7/0", int(2)), v("/3/0/7", int(1))], /values below it/],
  ])("refuses %s", (_, values, expected) => {
    expect(reason(encodeLwm2mCbor(values))).toMatch(expected);
  });

  test("the Device instance written at /3/0 reads back as the same entries", () => {
    const typed: Record<string, TypedValue> = {
      "/3/0/0": str("Open Mobile Alliance"),
      "/3/0/6/0": int(1),
      "/3/0/6/1": int(5),
      "/3/0/11/0": int(0),
      "/3/0/13": { type: "time", value: 1367491215 },
      "/3/0/14": str("+02:00"),
    };
    const bytes = value(
      encodeWrite(
        CF.lwm2mCbor,
        "/3/0",
        Object.entries(typed).map(([p, t]) => ({ path: p, value: t })),
      ),
    );
    expect(value(decodeContent(CF.lwm2mCbor, bytes, "/3/0"))).toEqual(DEVICE_ENTRIES.filter((e) => e.path in typed));
  });
});
