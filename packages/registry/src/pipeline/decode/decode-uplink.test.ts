import { describe, expect, it } from "vitest";
import { decodeStream, decodeUplink } from "./decode-uplink.js";
import { hexBytes, jsonBytes, pointSpec, streamSpec } from "./test-specs.js";
import { MAX_DECODE_PAYLOAD_BYTES } from "./types.js";

const temperature = pointSpec(1, "temperature", 1);
const level = pointSpec(2, "level", 16, 1);
const status = pointSpec(3, "status", 3);

describe("decodeUplink", () => {
  it("leaves an uplink that matches no stream as an event only", () => {
    const streams = [streamSpec([temperature], { topic: "data" })];
    expect(decodeUplink(streams, "other", false, jsonBytes({ temperature: 1 }))).toEqual({
      streamIds: [],
      values: [],
      refused: [],
      failures: [],
    });
  });

  it("decodes a JSON stream with its device time", () => {
    const streams = [streamSpec([temperature, level], { id: 4, topic: "data/+" })];
    const out = decodeUplink(streams, "data/room", false, jsonBytes({ ts: 1714564800000, temperature: 1, level: 999 }));
    expect(out).toEqual({
      streamIds: [4],
      deviceTime: 1714564800000,
      values: [{ dataPointIntId: 1, dataPointId: "temperature", number: 1, text: null }],
      refused: [{ dataPointIntId: 2, dataPointId: "level", reason: "must be from 0 to 255 (1 bytes)" }],
      failures: [],
    });
  });

  it("decodes a binary stream by its layout", () => {
    const streams = [streamSpec([level, temperature], { id: 5, streamDataType: 2, topic: "bin" })];
    const out = decodeUplink(streams, "bin", false, hexBytes("2a 4004000000000000"));
    expect(out.values.map((v) => v.number)).toEqual([42, 2.5]);
    expect(out).not.toHaveProperty("deviceTime");
  });

  it("decodes a gateway's own uplink with its gateway report streams only", () => {
    const streams = [
      streamSpec([temperature], { id: 1, streamType: 1, topic: "data" }),
      streamSpec([level], { id: 2, streamType: 3, topic: "data" }),
    ];
    const payload = jsonBytes({ temperature: 1, level: 2 });
    expect(decodeUplink(streams, "data", true, payload).values.map((v) => v.dataPointId)).toEqual(["level"]);
    expect(decodeUplink(streams, "data", false, payload).values.map((v) => v.dataPointId)).toEqual(["temperature"]);
  });

  it("combines every matching stream, the first stream's value winning for a point in both", () => {
    const first = streamSpec([temperature, pointSpec(3, "status", 3)], { id: 10, topic: "data" });
    const second = streamSpec([pointSpec(3, "state", 3), level], { id: 11, topic: "#" });
    const out = decodeUplink([first, second], "data", false, jsonBytes({ status: "a", state: "b", level: 3 }));
    expect(out.streamIds).toEqual([10, 11]);
    expect(out.values).toEqual([
      { dataPointIntId: 3, dataPointId: "status", number: null, text: "a" },
      { dataPointIntId: 2, dataPointId: "level", number: 3, text: null },
    ]);
  });

  it("drops a refusal of a point that another matching stream gave a value, keeps the first otherwise", () => {
    const bad = streamSpec([pointSpec(3, "s1", 3), pointSpec(1, "t1", 1)], { id: 1, topic: "data" });
    const good = streamSpec([pointSpec(3, "s2", 3), pointSpec(1, "t2", 1)], { id: 2, topic: "data" });
    const out = decodeUplink([bad, good], "data", false, jsonBytes({ s1: 5, s2: "ok", t1: "x", t2: "y" }));
    expect(out.values).toEqual([{ dataPointIntId: 3, dataPointId: "s2", number: null, text: "ok" }]);
    expect(out.refused).toEqual([{ dataPointIntId: 1, dataPointId: "t1", reason: "must be a finite number" }]);
  });

  it("takes the device time from the first stream that carries one", () => {
    const bin = streamSpec([level], { id: 1, streamDataType: 2, topic: "data" });
    const json = streamSpec([status], { id: 2, topic: "data" });
    const out = decodeUplink([bin, json], "data", false, jsonBytes({ ts: "2024-05-01T12:00:00Z", status: "x" }));
    expect(out.deviceTime).toBe(Date.UTC(2024, 4, 1, 12));
    expect(out.values.map((v) => v.dataPointId)).toEqual(["level", "status"]);
  });

  it("reports streams that cannot read the payload and keeps what the others read", () => {
    const json = streamSpec([status], { id: 1, topic: "data" });
    const bin = streamSpec([level], { id: 2, streamDataType: 2, topic: "data" });
    const odd = streamSpec([level], { id: 3, streamDataType: 9, topic: "data" });
    const out = decodeUplink([json, bin, odd], "data", false, hexBytes("07"));
    expect(out.failures).toEqual([
      { streamId: 1, error: "payload is not JSON" },
      { streamId: 3, error: "streamDataType 9 is unknown" },
    ]);
    expect(out.values).toEqual([{ dataPointIntId: 2, dataPointId: "level", number: 7, text: null }]);
  });

  it("refuses a payload over 4 MiB for every matching stream", () => {
    const streams = [streamSpec([status], { id: 1 }), streamSpec([level], { id: 2, streamDataType: 2 })];
    const out = decodeUplink(streams, "data", false, new Uint8Array(MAX_DECODE_PAYLOAD_BYTES + 1));
    expect(out.values).toEqual([]);
    expect(out.failures.map((f) => f.streamId)).toEqual([1, 2]);
  });
});

describe("decodeStream", () => {
  it("chooses the decoder by streamDataType", () => {
    const points = [pointSpec(1, "p", 16, 1)];
    expect(decodeStream(streamSpec(points, { streamDataType: 1 }), jsonBytes({ p: 1 }))).toMatchObject({
      values: [{ number: 1 }],
    });
    expect(decodeStream(streamSpec(points, { streamDataType: 2 }), hexBytes("02"))).toMatchObject({
      values: [{ number: 2 }],
    });
    expect(decodeStream(streamSpec(points, { streamDataType: 0 }), hexBytes("02"))).toEqual({
      error: "streamDataType 0 is unknown",
    });
  });
});
