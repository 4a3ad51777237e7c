import { describe, expect, it } from "vitest";
import { decodeUplink } from "./decode-uplink.js";
import { hexBytes, jsonBytes, pointSpec, streamSpec } from "./test-specs.js";

// The examples of docs/data.md, decoded as the page says they are.
describe("docs/data.md examples", () => {
  it("decodes the JSON example as documented", () => {
    const points = [
      pointSpec(1, "temperature", 1),
      pointSpec(2, "humidity", 16, 1),
      pointSpec(3, "door", 5),
      pointSpec(4, "position", 6),
      pointSpec(5, "label", 3),
    ];
    const payload = jsonBytes(
      '{"ts":"2024-05-01T12:00:00Z","temperature":21.5,"humidity":55,"door":true,"position":[2.35,48.85],"label":7}',
    );
    const out = decodeUplink([streamSpec(points, { topic: "telemetry" })], "telemetry", false, payload);
    expect(out.deviceTime).toBe(1714564800000);
    expect(out.values.map((v) => [v.dataPointId, v.number ?? v.text])).toEqual([
      ["temperature", 21.5],
      ["humidity", 55],
      ["door", 1],
      ["position", "2.35,48.85"],
    ]);
    expect(out.values[3]?.location).toEqual({ longitude: 2.35, latitude: 48.85 });
    expect(out.refused).toEqual([{ dataPointIntId: 5, dataPointId: "label", reason: "must be a string" }]);
  });

  it("decodes the binary example as documented", () => {
    const points = [
      pointSpec(1, "temperature", 17),
      pointSpec(2, "humidity", 16, 1),
      pointSpec(3, "door", 19),
      pointSpec(4, "window", 19),
      pointSpec(5, "alarm", 19),
      pointSpec(6, "label", 11, 4),
      pointSpec(7, "firmware", 12),
      pointSpec(8, "position", 6),
      pointSpec(9, "counter", 15),
    ];
    const payload = hexBytes(`
      41ac 0000 37a0 4131 0000 0003 312e 3240
      02cc cccc cccc cd40 486c cccc cccc cdff
      ffff fe`);
    expect(payload.byteLength).toBe(35);
    const stream = streamSpec(points, { topic: "telemetry", streamDataType: 2 });
    const out = decodeUplink([stream], "telemetry", false, payload);
    expect(out.refused).toEqual([]);
    expect(out.values.map((v) => [v.dataPointId, v.number ?? v.text])).toEqual([
      ["temperature", 21.5],
      ["humidity", 55],
      ["door", 1],
      ["window", 0],
      ["alarm", 1],
      ["label", "A1"],
      ["firmware", "1.2"],
      ["position", "2.35,48.85"],
      ["counter", -2],
    ]);
  });
});
