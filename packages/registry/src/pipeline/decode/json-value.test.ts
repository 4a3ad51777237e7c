import { describe, expect, it } from "vitest";
import { FLOAT32_MAX, jsonPointValue } from "./json-value.js";
import { pointSpec } from "./test-specs.js";

const valueOf = (type: number, raw: unknown, binarySize?: number) => {
  const outcome = jsonPointValue(pointSpec(7, "p", type, binarySize), raw);
  if (!("value" in outcome)) throw new Error(`refused: ${outcome.reason}`);
  return outcome.value;
};
const reasonOf = (type: number, raw: unknown, binarySize?: number) => {
  const outcome = jsonPointValue(pointSpec(7, "p", type, binarySize), raw);
  if ("value" in outcome) throw new Error(`accepted: ${JSON.stringify(outcome.value)}`);
  return outcome.reason;
};

describe("jsonPointValue", () => {
  it("keeps the point's ids with the value", () => {
    expect(valueOf(1, 21.5)).toEqual({ dataPointIntId: 7, dataPointId: "p", number: 21.5, text: null });
  });

  it("accepts finite numbers up to ±1e300 for numeric and double points and refuses the rest", () => {
    for (const type of [1, 18]) {
      expect(valueOf(type, -0.125).number).toBe(-0.125);
      expect(valueOf(type, -1e300).number).toBe(-1e300);
      // Sums of such values (aggregate metrics) would overflow a double.
      expect(reasonOf(type, Number.MAX_VALUE)).toBe("must be within ±1e+300");
      expect(reasonOf(type, "21.5")).toBe("must be a finite number");
      expect(reasonOf(type, true)).toBe("must be a finite number");
      expect(reasonOf(type, Infinity)).toBe("must be a finite number");
      expect(reasonOf(type, [1])).toBe("must be a finite number");
    }
  });

  it("accepts single floats up to FLT_MAX and refuses larger magnitudes", () => {
    for (const type of [17, 25]) {
      expect(valueOf(type, FLOAT32_MAX).number).toBe(FLOAT32_MAX);
      expect(valueOf(type, -FLOAT32_MAX).number).toBe(-FLOAT32_MAX);
      expect(reasonOf(type, 3.5e38)).toMatch(/within/);
      expect(reasonOf(type, -3.5e38)).toMatch(/within/);
      expect(reasonOf(type, "1")).toBe("must be a finite number");
    }
  });

  it("accepts any safe integer for integer points without binarySize", () => {
    for (const type of [15, 21]) {
      expect(valueOf(type, Number.MIN_SAFE_INTEGER).number).toBe(Number.MIN_SAFE_INTEGER);
      expect(valueOf(type, Number.MAX_SAFE_INTEGER).number).toBe(Number.MAX_SAFE_INTEGER);
      expect(reasonOf(type, 2 ** 53)).toMatch(/2\^53/);
    }
    for (const type of [16, 22]) {
      expect(valueOf(type, 0).number).toBe(0);
      expect(valueOf(type, Number.MAX_SAFE_INTEGER).number).toBe(Number.MAX_SAFE_INTEGER);
      expect(reasonOf(type, -1)).toBe("must not be negative");
    }
  });

  it("refuses fractions, strings and booleans for integer points", () => {
    for (const type of [15, 16, 21, 22]) {
      expect(reasonOf(type, 1.5)).toBe("must be an integer");
      expect(reasonOf(type, "1")).toBe("must be an integer");
      expect(reasonOf(type, false)).toBe("must be an integer");
    }
  });

  it("holds integer points with binarySize to the range of that many bytes, both ends included", () => {
    expect(valueOf(15, -128, 1).number).toBe(-128);
    expect(valueOf(15, 127, 1).number).toBe(127);
    expect(reasonOf(15, 128, 1)).toBe("must be from -128 to 127 (1 bytes)");
    expect(reasonOf(15, -129, 1)).toBe("must be from -128 to 127 (1 bytes)");
    expect(valueOf(16, 255, 1).number).toBe(255);
    expect(reasonOf(16, 256, 1)).toBe("must be from 0 to 255 (1 bytes)");
    expect(valueOf(15, -32768, 2).number).toBe(-32768);
    expect(reasonOf(15, 32768, 2)).toMatch(/-32768 to 32767/);
    expect(valueOf(16, 65535, 2).number).toBe(65535);
    expect(reasonOf(16, 65536, 2)).toMatch(/0 to 65535/);
    expect(valueOf(15, 2147483647, 4).number).toBe(2147483647);
    expect(reasonOf(15, -2147483649, 4)).toMatch(/-2147483648 to 2147483647/);
    expect(valueOf(16, 4294967295, 4).number).toBe(4294967295);
    expect(reasonOf(16, 4294967296, 4)).toMatch(/0 to 4294967295/);
    expect(valueOf(15, 8388607, 3).number).toBe(8388607);
    expect(reasonOf(15, 8388608, 3)).toMatch(/-8388608 to 8388607/);
    expect(valueOf(22, Number.MAX_SAFE_INTEGER, 8).number).toBe(Number.MAX_SAFE_INTEGER);
    expect(reasonOf(16, 1, 9)).toBe("integer binarySize must be 1 to 8 bytes");
    expect(reasonOf(15, 1, 0)).toBe("integer binarySize must be 1 to 8 bytes");
  });

  it("reads booleans and bits as 1 or 0 from true, false, 1 and 0 only", () => {
    for (const type of [5, 19, 23]) {
      expect(valueOf(type, true).number).toBe(1);
      expect(valueOf(type, false).number).toBe(0);
      expect(valueOf(type, 1).number).toBe(1);
      expect(valueOf(type, 0).number).toBe(0);
      for (const bad of [2, -1, 0.5, "true", "1", [], {}])
        expect(reasonOf(type, bad)).toBe("must be true, false, 1 or 0");
    }
  });

  it("keeps a fault as its number or its text", () => {
    expect(valueOf(4, 3)).toMatchObject({ number: 3, text: null });
    expect(valueOf(4, "E42")).toMatchObject({ number: null, text: "E42" });
    expect(reasonOf(4, true)).toBe("must be a number or a string");
    expect(reasonOf(4, { code: 1 })).toBe("must be a number or a string");
  });

  it("keeps strings as text and refuses other types", () => {
    for (const type of [3, 12, 11]) {
      expect(valueOf(type, "héllo")).toMatchObject({ number: null, text: "héllo" });
      expect(valueOf(type, "")).toMatchObject({ text: "" });
      expect(reasonOf(type, 42)).toBe("must be a string");
    }
  });

  it("holds a fixed-length string to binarySize bytes of UTF-8", () => {
    expect(valueOf(11, "abcd", 4).text).toBe("abcd");
    expect(valueOf(11, "é", 2).text).toBe("é");
    expect(reasonOf(11, "abcde", 4)).toBe("must be at most 4 bytes of UTF-8");
    expect(reasonOf(11, "é", 1)).toBe("must be at most 1 bytes of UTF-8");
  });

  it("keeps binaries sent as hex digit pairs as lower-case hex text", () => {
    expect(valueOf(14, "DEADbeef").text).toBe("deadbeef");
    expect(valueOf(14, "").text).toBe("");
    expect(valueOf(13, "0A0B", 2).text).toBe("0a0b");
    expect(valueOf(13, "0a0b0c").text).toBe("0a0b0c");
    expect(reasonOf(13, "0a", 2)).toBe("must be exactly 2 bytes");
    expect(reasonOf(13, "0a0b0c", 2)).toBe("must be exactly 2 bytes");
    for (const bad of ["abc", "zz", "0x0a", 10]) expect(reasonOf(14, bad)).toBe("must be a string of hex digit pairs");
  });

  it("reads a geolocation from an array, an object or a string", () => {
    const expected = { number: null, text: "116.39,39.9", location: { longitude: 116.39, latitude: 39.9 } };
    expect(valueOf(6, [116.39, 39.9])).toMatchObject(expected);
    expect(valueOf(6, { longitude: 116.39, latitude: 39.9 })).toMatchObject(expected);
    expect(valueOf(6, "116.39, 39.9")).toMatchObject(expected);
    expect(valueOf(6, [-180, -90]).location).toEqual({ longitude: -180, latitude: -90 });
    expect(valueOf(6, [180, 90]).location).toEqual({ longitude: 180, latitude: 90 });
  });

  it("refuses geolocations that are malformed or outside the globe", () => {
    for (const bad of [[1], [1, 2, 3], ["1", "2"], { lon: 1, lat: 2 }, "1;2", "1,", ",2", 5, true]) {
      expect(reasonOf(6, bad)).toMatch(/must be \[longitude, latitude\]/);
    }
    expect(reasonOf(6, [180.5, 0])).toBe("longitude must be from -180 to 180");
    expect(reasonOf(6, [0, -90.5])).toBe("latitude must be from -90 to 90");
  });

  it("reads a time point as epoch ms from a number or an ISO 8601 string", () => {
    expect(valueOf(24, 1714564800000).number).toBe(1714564800000);
    expect(valueOf(24, "2024-05-01T12:00:00Z").number).toBe(1714564800000);
    expect(reasonOf(24, "yesterday")).toBe("must be epoch milliseconds or an ISO 8601 date-time");
    expect(reasonOf(24, -1)).toBe("must be epoch milliseconds or an ISO 8601 date-time");
  });

  it("refuses a value of a point whose type code is unknown", () => {
    expect(reasonOf(2, 1)).toBe("pointDataType 2 is unknown");
  });
});
