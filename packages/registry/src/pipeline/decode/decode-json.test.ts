import { describe, expect, it } from "vitest";
import { decodeJson, MIN_DEVICE_TIME_MS } from "./decode-json.js";
import { jsonBytes, pointSpec, streamSpec } from "./test-specs.js";
import { MAX_DECODE_PAYLOAD_BYTES, type Decoded, type DecodeResult } from "./types.js";

const temperature = pointSpec(1, "temperature", 1);
const humidity = pointSpec(2, "humidity", 16, 1);
const door = pointSpec(3, "door", 5);
const name = pointSpec(4, "name", 3);
const position = pointSpec(5, "position", 6);
const stream = streamSpec([temperature, humidity, door, name, position]);

const decoded = (result: DecodeResult): Decoded => {
  if ("error" in result) throw new Error(result.error);
  return result;
};

describe("decodeJson", () => {
  it("reads the members named by the stream's points, in the stream's point order", () => {
    const out = decoded(
      decodeJson(
        stream,
        jsonBytes({ name: "hall", door: true, humidity: 40, temperature: 21.5, position: [2.35, 48.85] }),
      ),
    );
    expect(out).toEqual({
      values: [
        { dataPointIntId: 1, dataPointId: "temperature", number: 21.5, text: null },
        { dataPointIntId: 2, dataPointId: "humidity", number: 40, text: null },
        { dataPointIntId: 3, dataPointId: "door", number: 1, text: null },
        { dataPointIntId: 4, dataPointId: "name", number: null, text: "hall" },
        {
          dataPointIntId: 5,
          dataPointId: "position",
          number: null,
          text: "2.35,48.85",
          location: { longitude: 2.35, latitude: 48.85 },
        },
      ],
      refused: [],
    });
  });

  it("gives no value and no refusal for absent or null members, and ignores members of no point", () => {
    const out = decoded(decodeJson(stream, jsonBytes({ temperature: 20, humidity: null, other: "x" })));
    expect(out.values.map((v) => v.dataPointId)).toEqual(["temperature"]);
    expect(out.refused).toEqual([]);
    expect(decoded(decodeJson(stream, jsonBytes({})))).toEqual({ values: [], refused: [] });
  });

  it("refuses a wrong value for its point alone and keeps the others", () => {
    const out = decoded(
      decodeJson(
        stream,
        jsonBytes({ temperature: "hot", humidity: 300, door: "open", name: "hall", position: [0, 95] }),
      ),
    );
    expect(out.values).toEqual([{ dataPointIntId: 4, dataPointId: "name", number: null, text: "hall" }]);
    expect(out.refused).toEqual([
      { dataPointIntId: 1, dataPointId: "temperature", reason: "must be a finite number" },
      { dataPointIntId: 2, dataPointId: "humidity", reason: "must be from 0 to 255 (1 bytes)" },
      { dataPointIntId: 3, dataPointId: "door", reason: "must be true, false, 1 or 0" },
      { dataPointIntId: 5, dataPointId: "position", reason: "latitude must be from -90 to 90" },
    ]);
  });

  it("reads every point type from its JSON form", () => {
    const types = [1, 3, 4, 5, 6, 11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25];
    // prettier-ignore
    const sent: Record<string, unknown> = {
      t1: 1.5, t3: "s", t4: "E1", t5: false, t6: { longitude: 1, latitude: 2 }, t11: "ab", t12: "v",
      t13: "00ff", t14: "", t15: -5, t16: 5, t17: 0.5, t18: 1e300, t19: 1, t21: -7, t22: 7, t23: true,
      t24: "1970-01-01T00:00:01Z", t25: 2.5,
    };
    const out = decoded(
      decodeJson(streamSpec(types.map((t) => pointSpec(t, `t${t}`, t, t === 13 ? 2 : undefined))), jsonBytes(sent)),
    );
    expect(out.refused).toEqual([]);
    const got = Object.fromEntries(out.values.map((v) => [v.dataPointId, v.number ?? v.text]));
    // prettier-ignore
    expect(got).toEqual({
      t1: 1.5, t3: "s", t4: "E1", t5: 0, t6: "1,2", t11: "ab", t12: "v", t13: "00ff", t14: "", t15: -5,
      t16: 5, t17: 0.5, t18: 1e300, t19: 1, t21: -7, t22: 7, t23: 1, t24: 1000, t25: 2.5,
    });
  });

  it("reads only own top-level members, so nested objects and inherited names give nothing", () => {
    const points = [pointSpec(1, "a", 1), pointSpec(2, "constructor", 3), pointSpec(3, "__proto__", 3)];
    const out = decoded(decodeJson(streamSpec(points), jsonBytes({ nested: { a: 1 } })));
    expect(out).toEqual({ values: [], refused: [] });
    const own = decoded(decodeJson(streamSpec(points), jsonBytes('{"__proto__":"p","constructor":"c"}')));
    expect(own.values.map((v) => v.text)).toEqual(["c", "p"]);
  });

  it("does not mind deep nesting in members it does not read", () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const out = decoded(decodeJson(stream, jsonBytes(`{"temperature":3,"deep":${deep}}`)));
    expect(out.values).toEqual([{ dataPointIntId: 1, dataPointId: "temperature", number: 3, text: null }]);
  });

  it("takes the device time from ts as epoch milliseconds or ISO 8601", () => {
    const ms = Date.UTC(2024, 4, 1, 12);
    expect(decoded(decodeJson(stream, jsonBytes({ ts: ms, temperature: 1 }))).deviceTime).toBe(ms);
    expect(decoded(decodeJson(stream, jsonBytes({ ts: "2024-05-01T14:00:00+02:00" }))).deviceTime).toBe(ms);
    expect(decoded(decodeJson(stream, jsonBytes({ ts: MIN_DEVICE_TIME_MS }))).deviceTime).toBe(MIN_DEVICE_TIME_MS);
  });

  it("ignores a ts that is absent, invalid or before 2000, keeping the values", () => {
    for (const ts of [undefined, "soon", "2024-05-01T12:00:00", true, null, -5, 1714564800, MIN_DEVICE_TIME_MS - 1]) {
      const out = decoded(decodeJson(stream, jsonBytes({ ts, temperature: 1 })));
      expect(out, String(ts)).not.toHaveProperty("deviceTime");
      expect(out.values).toHaveLength(1);
    }
  });

  it("reads ts as a data point, not as the device time, when a point of the stream is named ts", () => {
    const out = decoded(decodeJson(streamSpec([pointSpec(9, "ts", 16)]), jsonBytes({ ts: 1714564800000 })));
    expect(out).toEqual({
      values: [{ dataPointIntId: 9, dataPointId: "ts", number: 1714564800000, text: null }],
      refused: [],
    });
  });

  it("fails on payloads that are not a UTF-8 JSON object", () => {
    expect(decodeJson(stream, Uint8Array.of(0x7b, 0xff, 0x7d))).toEqual({ error: "payload is not UTF-8" });
    expect(decodeJson(stream, jsonBytes('{"temperature": 1'))).toEqual({ error: "payload is not JSON" });
    expect(decodeJson(stream, new Uint8Array(0))).toEqual({ error: "payload is not JSON" });
    for (const doc of ["[1,2]", "null", "3", '"text"', "true"]) {
      expect(decodeJson(stream, jsonBytes(doc)), doc).toEqual({ error: "payload is not a JSON object" });
    }
  });

  it("accepts a UTF-8 byte order mark and surrounding white space", () => {
    const bytes = Uint8Array.from([0xef, 0xbb, 0xbf, ...jsonBytes(' \n{"temperature":2}\n ')]);
    expect(decoded(decodeJson(stream, bytes)).values).toHaveLength(1);
  });

  it("refuses payloads larger than 4 MiB whole and decodes one of exactly 4 MiB", () => {
    const body = '{"temperature":1,"pad":"';
    const exact = jsonBytes(body + "x".repeat(MAX_DECODE_PAYLOAD_BYTES - body.length - 2) + '"}');
    expect(exact.byteLength).toBe(MAX_DECODE_PAYLOAD_BYTES);
    expect(decoded(decodeJson(stream, exact)).values).toHaveLength(1);
    const over = new Uint8Array(MAX_DECODE_PAYLOAD_BYTES + 1);
    expect(decodeJson(stream, over)).toEqual({ error: "payload larger than 4194304 bytes" });
  });
});
