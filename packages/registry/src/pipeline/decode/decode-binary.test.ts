import { describe, expect, it } from "vitest";
import { decodeBinary } from "./decode-binary.js";
import { hexBytes, pointSpec, streamSpec } from "./test-specs.js";
import { MAX_DECODE_PAYLOAD_BYTES, type Decoded, type DecodeResult, type PointSpec } from "./types.js";

const decoded = (result: DecodeResult): Decoded => {
  if ("error" in result) throw new Error(result.error);
  return result;
};
const run = (points: PointSpec[], dump: string) =>
  decoded(decodeBinary(streamSpec(points, { streamDataType: 2 }), hexBytes(dump)));
/** The value (number, else text) of each point by dataPointId, and the refusal reasons by dataPointId. */
const read = (points: PointSpec[], dump: string) => {
  const out = run(points, dump);
  return {
    values: Object.fromEntries(out.values.map((v) => [v.dataPointId, v.number ?? v.text])),
    refused: Object.fromEntries(out.refused.map((r) => [r.dataPointId, r.reason])),
  };
};
const one = (type: number, dump: string, binarySize?: number) => read([pointSpec(1, "p", type, binarySize)], dump);

describe("decodeBinary", () => {
  it("reads the points in stream order, big-endian, one after the other", () => {
    const points = [pointSpec(1, "temperature", 1), pointSpec(2, "level", 16, 2), pointSpec(3, "on", 5)];
    expect(run(points, "4035800000000000 01f4 01")).toEqual({
      values: [
        { dataPointIntId: 1, dataPointId: "temperature", number: 21.5, text: null },
        { dataPointIntId: 2, dataPointId: "level", number: 500, text: null },
        { dataPointIntId: 3, dataPointId: "on", number: 1, text: null },
      ],
      refused: [],
    });
  });

  it("reads signed integers of every width at both ends of their range", () => {
    expect(one(15, "80", 1).values.p).toBe(-128);
    expect(one(15, "7f", 1).values.p).toBe(127);
    expect(one(15, "ff", 1).values.p).toBe(-1);
    expect(one(15, "8000", 2).values.p).toBe(-32768);
    expect(one(15, "7fff", 2).values.p).toBe(32767);
    expect(one(15, "800000", 3).values.p).toBe(-8388608);
    expect(one(15, "80000000", 4).values.p).toBe(-2147483648);
    expect(one(15, "7fffffff", 4).values.p).toBe(2147483647);
    expect(one(15, "800000000000", 6).values.p).toBe(-(2 ** 47));
    expect(one(15, "ffffffffffffffff", 8).values.p).toBe(-1);
    expect(one(21, "001fffffffffffff", 8).values.p).toBe(Number.MAX_SAFE_INTEGER);
    expect(one(21, "ffe0000000000001", 8).values.p).toBe(Number.MIN_SAFE_INTEGER);
    expect(one(15, "ff800000000000", 7).values.p).toBe(-(2 ** 47));
    expect(one(15, "80000000000000", 7).refused.p).toBe("must be within ±(2^53 - 1)");
  });

  it("reads unsigned integers of every width at both ends of their range", () => {
    expect(one(16, "00", 1).values.p).toBe(0);
    expect(one(16, "ff", 1).values.p).toBe(255);
    expect(one(16, "ffff", 2).values.p).toBe(65535);
    expect(one(16, "ffffff", 3).values.p).toBe(16777215);
    expect(one(22, "ffffffff", 4).values.p).toBe(4294967295);
    expect(one(16, "ffffffffffff", 6).values.p).toBe(2 ** 48 - 1);
    expect(one(16, "001fffffffffffff", 8).values.p).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("reads integers without binarySize as 4 bytes", () => {
    const points = [pointSpec(1, "s", 15), pointSpec(2, "u", 16), pointSpec(3, "l", 21), pointSpec(4, "ul", 22)];
    expect(read(points, "fffffffe 00000102 80000000 ffffffff").values).toEqual({
      s: -2,
      u: 258,
      l: -2147483648,
      ul: 4294967295,
    });
  });

  it("refuses 8-byte integers beyond the safe integers and goes on with the next point", () => {
    const points = [pointSpec(1, "big", 16, 8), pointSpec(2, "neg", 15, 8), pointSpec(3, "next", 16, 1)];
    expect(read(points, "0020000000000000 ffe0000000000000 2a")).toEqual({
      values: { next: 42 },
      refused: { big: "must be within ±(2^53 - 1)", neg: "must be within ±(2^53 - 1)" },
    });
    expect(one(16, "ffffffffffffffff", 8).refused.p).toBe("must be within ±(2^53 - 1)");
  });

  it("refuses an integer wider than 8 bytes but skips its bytes to read the next point", () => {
    const points = [pointSpec(1, "wide", 16, 9), pointSpec(2, "next", 16, 1)];
    expect(read(points, "000000000000000000 07")).toEqual({
      values: { next: 7 },
      refused: { wide: "integer binarySize must be 1 to 8 bytes" },
    });
  });

  it("refuses an integer with a binarySize that is no length, and every point after it", () => {
    const points = [pointSpec(1, "zero", 16, 0), pointSpec(2, "next", 16, 1)];
    expect(read(points, "0102").refused).toEqual({
      zero: "binarySize 0 is no length",
      next: "follows zero, whose length is unknown",
    });
  });

  it("reads float32 for single floats and float64 for numeric and double points", () => {
    const points = [pointSpec(1, "f", 17), pointSpec(2, "m", 25), pointSpec(3, "n", 1), pointSpec(4, "d", 18)];
    expect(read(points, "3fc00000 be800000 4004000000000000 c046a00000000000").values).toEqual({
      f: 1.5,
      m: -0.25,
      n: 2.5,
      d: -45.25,
    });
  });

  it("refuses NaN and infinite floats and goes on", () => {
    const points = [pointSpec(1, "nan", 17), pointSpec(2, "inf", 18), pointSpec(3, "ninf", 17), pointSpec(4, "ok", 17)];
    expect(read(points, "7fc00000 7ff0000000000000 ff800000 3fc00000")).toEqual({
      values: { ok: 1.5 },
      refused: { nan: "must be a finite number", inf: "must be a finite number", ninf: "must be a finite number" },
    });
  });

  it("refuses a double beyond ±1e300 (its sums would overflow) and goes on", () => {
    const points = [pointSpec(1, "huge", 18), pointSpec(2, "ok", 17)];
    expect(read(points, "7fefffffffffffff 3fc00000")).toEqual({
      values: { ok: 1.5 },
      refused: { huge: "must be within ±1e+300" },
    });
  });

  it("reads a boolean byte as 0 for zero and 1 for anything else", () => {
    for (const type of [5, 23]) {
      expect(one(type, "00").values.p).toBe(0);
      expect(one(type, "01").values.p).toBe(1);
      expect(one(type, "ff").values.p).toBe(1);
    }
    expect(one(23, "02", 15).values.p).toBe(1);
  });

  it("packs consecutive bit points into bytes, most significant bit first", () => {
    const bits = Array.from({ length: 10 }, (_, i) => pointSpec(i + 1, `b${i}`, 19));
    expect(Object.values(read(bits, "a5 c0").values)).toEqual([1, 0, 1, 0, 0, 1, 0, 1, 1, 1]);
  });

  it("starts the next non-bit point at the next whole byte after bit points", () => {
    const points = [pointSpec(1, "b0", 19), pointSpec(2, "b1", 19), pointSpec(3, "n", 16, 1), pointSpec(4, "b2", 19)];
    expect(read(points, "40 2a 80").values).toEqual({ b0: 0, b1: 1, n: 42, b2: 1 });
    const eight = Array.from({ length: 8 }, (_, i) => pointSpec(i + 1, `b${i}`, 19));
    expect(read([...eight, pointSpec(9, "n", 16, 1)], "ff 07").values.n).toBe(7);
  });

  it("reads a fault as its one-byte code", () => {
    expect(one(4, "00").values.p).toBe(0);
    expect(one(4, "fe").values.p).toBe(254);
  });

  it("reads a fixed-length string of binarySize bytes without its trailing NULs", () => {
    const points = [pointSpec(1, "s", 11, 6), pointSpec(2, "n", 16, 1)];
    expect(read(points, "686921000000 05").values).toEqual({ s: "hi!", n: 5 });
    expect(one(11, "610062", 3).values.p).toBe("a\u0000b");
    expect(one(11, "c3a9", 2).values.p).toBe("é");
    expect(one(11, "0000", 2).values.p).toBe("");
  });

  it("refuses a string that is not UTF-8 and goes on with the next point", () => {
    const points = [pointSpec(1, "s", 11, 2), pointSpec(2, "v", 12), pointSpec(3, "n", 16, 1)];
    expect(read(points, "c328 0001ff 09")).toEqual({
      values: { n: 9 },
      refused: { s: "is not UTF-8", v: "is not UTF-8" },
    });
  });

  it("reads variable-length strings after their 2-byte length", () => {
    for (const type of [3, 12]) {
      const points = [pointSpec(1, "s", type), pointSpec(2, "e", type), pointSpec(3, "n", 16, 1)];
      expect(read(points, "0003 616263 0000 2a").values).toEqual({ s: "abc", e: "", n: 42 });
    }
  });

  it("reads binaries as lower-case hex: fixed ones of binarySize bytes, variable ones after a 2-byte length", () => {
    const points = [pointSpec(1, "f", 13, 3), pointSpec(2, "v", 14), pointSpec(3, "e", 14), pointSpec(4, "n", 16, 1)];
    expect(read(points, "DEADBE 0002 00ff 0000 01").values).toEqual({ f: "deadbe", v: "00ff", e: "", n: 1 });
  });

  it("reads a geolocation as two float64, longitude then latitude", () => {
    expect(run([pointSpec(1, "g", 6)], "4004000000000000 c046a00000000000").values).toEqual([
      {
        dataPointIntId: 1,
        dataPointId: "g",
        number: null,
        text: "2.5,-45.25",
        location: { longitude: 2.5, latitude: -45.25 },
      },
    ]);
  });

  it("refuses a geolocation outside the globe and goes on", () => {
    const points = [pointSpec(1, "g", 6), pointSpec(2, "n", 16, 1)];
    expect(read(points, "4069000000000000 0000000000000000 03")).toEqual({
      values: { n: 3 },
      refused: { g: "longitude must be from -180 to 180" },
    });
  });

  it("reads a time as a signed 8-byte count of epoch milliseconds", () => {
    expect(one(24, "0000018f34069e00").values.p).toBe(1714564800000);
    expect(one(24, "ffffffffffffffff").refused.p).toBe("must be epoch ms from 0 to 8.64e15");
    expect(one(24, "7fffffffffffffff").refused.p).toBe("must be epoch ms from 0 to 8.64e15");
  });

  it("reads every point type from one payload", () => {
    const types = [19, 19, 1, 3, 4, 5, 6, 11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25];
    const points = types.map((t, i) => pointSpec(i, `t${i}`, t, t === 11 || t === 13 ? 2 : undefined));
    const dump =
      "c0 4004000000000000 000161 07 01 4004000000000000 c046a00000000000 6100 000162 abcd 0001ef" +
      " ffffffff 00000010 3fc00000 4004000000000000 80 fffffffd 00000003 00 0000018f34069e00 be800000";
    const out = read(points, dump);
    expect(out.refused).toEqual({});
    expect(Object.values(out.values)).toEqual([
      1,
      1,
      2.5,
      "a",
      7,
      1,
      "2.5,-45.25",
      "a",
      "b",
      "abcd",
      "ef",
      -1,
      16,
      1.5,
      2.5,
      1,
      -3,
      3,
      0,
      1714564800000,
      -0.25,
    ]);
  });

  it("keeps the points that fit a truncated payload and refuses the rest", () => {
    const points = [pointSpec(1, "a", 16, 1), pointSpec(2, "b", 16, 4), pointSpec(3, "c", 16, 1)];
    expect(read(points, "05 0000")).toEqual({
      values: { a: 5 },
      refused: {
        b: "truncated: needs 4 bytes at offset 1, payload has 3",
        c: "truncated: the payload ends before this point",
      },
    });
  });

  it("refuses a variable-length value whose length prefix or body is cut short", () => {
    expect(one(12, "00").refused.p).toBe("truncated: needs 2 bytes at offset 0, payload has 1");
    expect(one(14, "0004 0102").refused.p).toBe("truncated: needs 4 bytes at offset 2, payload has 4");
    expect(one(11, "61", 2).refused.p).toBe("truncated: needs 2 bytes at offset 0, payload has 1");
  });

  it("refuses bit points past the last byte", () => {
    const points = [pointSpec(1, "n", 16, 1), pointSpec(2, "b", 19), pointSpec(3, "c", 19)];
    expect(read(points, "01").refused).toEqual({
      b: "truncated: needs 1 bytes at offset 1, payload has 1",
      c: "truncated: the payload ends before this point",
    });
  });

  it("refuses every point of an empty payload", () => {
    const out = run([pointSpec(1, "a", 5), pointSpec(2, "b", 1)], "");
    expect(out.values).toEqual([]);
    expect(out.refused.map((r) => r.dataPointIntId)).toEqual([1, 2]);
  });

  it("ignores bytes left over after the last point", () => {
    expect(one(16, "01 020304", 1)).toEqual({ values: { p: 1 }, refused: {} });
  });

  it("refuses a fixed-length point without binarySize, and every point after it, since their offsets are unknown", () => {
    for (const type of [11, 13]) {
      const points = [pointSpec(1, "a", 16, 1), pointSpec(2, "f", type), pointSpec(3, "c", 16, 1)];
      expect(read(points, "01 0203 04")).toEqual({
        values: { a: 1 },
        refused: {
          f: `a fixed-length ${type === 11 ? "string" : "binary"} needs binarySize`,
          c: "follows f, whose length is unknown",
        },
      });
    }
  });

  it("refuses a point of an unknown type and every point after it", () => {
    const points = [pointSpec(1, "x", 2), pointSpec(2, "c", 16, 1)];
    expect(read(points, "0102").refused).toEqual({
      x: "pointDataType 2 is unknown",
      c: "follows x, whose length is unknown",
    });
  });

  it("reads from a view into a larger buffer at its own offset", () => {
    const backing = hexBytes("ffff 002a ffff");
    const out = decodeBinary(streamSpec([pointSpec(1, "p", 16, 2)]), backing.subarray(2, 4));
    expect(decoded(out).values[0]?.number).toBe(42);
  });

  it("refuses payloads larger than 4 MiB whole", () => {
    const stream = streamSpec([pointSpec(1, "p", 16, 1)]);
    expect(decodeBinary(stream, new Uint8Array(MAX_DECODE_PAYLOAD_BYTES + 1))).toEqual({
      error: "payload larger than 4194304 bytes",
    });
    expect(decoded(decodeBinary(stream, new Uint8Array(MAX_DECODE_PAYLOAD_BYTES))).values).toHaveLength(1);
  });
});
