import { describe, expect, it } from "vitest";
import { decodeLwm2m } from "./decode-lwm2m.js";
import { decodeUplink } from "./decode-uplink.js";
import { jsonBytes, pointSpec, streamSpec } from "./test-specs.js";
import { STREAM_DATA_TYPE } from "./types.js";

const temperature = pointSpec(1, "3303/0/5700", 1);
const maker = pointSpec(2, "3/0/0", 3);
const battery = pointSpec(3, "/3/0/9", 16, 1);
const stream = streamSpec([temperature, maker, battery], { streamDataType: STREAM_DATA_TYPE.lwm2m, topic: "up/+" });

const answer = (content: unknown, extra: Record<string, unknown> = {}) =>
  jsonBytes({ reqID: "r1", msgType: "read", data: { code: "2.05", codeMsg: "Content", content, ...extra } });

describe("decodeLwm2m", () => {
  it("gives each point named by an object path the value of that path, with or without the leading slash", () => {
    const out = decodeLwm2m(
      stream,
      answer([
        { path: "/3303/0/5700", value: 21.5 },
        { path: "/3/0/0", value: "Acme" },
        { path: "/3/0/9", value: 87 },
        { path: "/3/0/13", value: 1 },
      ]),
    );
    expect(out).toEqual({
      values: [
        { dataPointIntId: 1, dataPointId: "3303/0/5700", number: 21.5, text: null },
        { dataPointIntId: 2, dataPointId: "3/0/0", number: null, text: "Acme" },
        { dataPointIntId: 3, dataPointId: "/3/0/9", number: 87, text: null },
      ],
      refused: [],
    });
  });

  it("takes the latest SenML time of the entries as the device's time, and refuses a value of the wrong type alone", () => {
    const t = Date.UTC(2026, 10, 22, 12) / 1000;
    const out = decodeLwm2m(
      stream,
      answer([
        { path: "/3303/0/5700", value: 20, time: t - 10 },
        { path: "/3303/0/5700", value: 21, time: t },
        { path: "/3/0/9", value: "full" },
      ]),
    );
    expect(out).toMatchObject({ deviceTime: t * 1000, values: [{ dataPointIntId: 1, number: 21 }] });
    expect((out as { refused: unknown[] }).refused).toHaveLength(1);
  });

  it("gives no values for an answer without content, and fails on anything but the adapter's shape", () => {
    expect(decodeLwm2m(stream, jsonBytes({ reqID: "w", msgType: "write", data: { code: "2.04" } }))).toEqual({
      values: [],
      refused: [],
    });
    expect(decodeLwm2m(stream, jsonBytes({ temp: 1 }))).toEqual({ error: "payload has no data object" });
    expect(decodeLwm2m(stream, answer("x"))).toEqual({ error: "data.content is not an array" });
    expect(decodeLwm2m(stream, jsonBytes("not json"))).toEqual({ error: "payload is not JSON" });
  });

  it("is used for answers and notifications through decodeUplink", () => {
    const notify = jsonBytes({
      reqID: "autoSub",
      msgType: "notify",
      data: { content: [{ path: "/3/0/9", value: 5 }] },
    });
    expect(decodeUplink([stream], "up/notify", false, notify).values).toHaveLength(1);
    expect(decodeUplink([stream], "telemetry", false, notify).streamIds).toEqual([]);
  });
});
