import { describe, expect, it } from "vitest";
import { matchStreams } from "./match-streams.js";
import { streamSpec } from "./test-specs.js";

const s = (id: number, streamType: number, topic: string) => streamSpec([], { id, streamType, topic });
const ids = (streams: { id: number }[]) => streams.map((x) => x.id);

describe("matchStreams", () => {
  const streams = [
    s(1, 1, "data"),
    s(2, 1, "sensors/+/temp"),
    s(3, 1, "sensors/#"),
    s(4, 2, "data"),
    s(5, 3, "data"),
    s(6, 4, "data"),
    s(7, 3, "gw/#"),
    s(8, 1, "#"),
  ];

  it("matches a device's uplink to its report streams whose filter matches, in the given order", () => {
    expect(ids(matchStreams(streams, "data", false))).toEqual([1, 8]);
    expect(ids(matchStreams(streams, "sensors/kitchen/temp", false))).toEqual([2, 3, 8]);
    expect(ids(matchStreams(streams, "sensors", false))).toEqual([3, 8]);
    expect(ids(matchStreams(streams, "sensors/kitchen/temp/raw", false))).toEqual([3, 8]);
  });

  it("matches a gateway's own uplink only to gateway report streams", () => {
    expect(ids(matchStreams(streams, "data", true))).toEqual([5]);
    expect(ids(matchStreams(streams, "gw", true))).toEqual([7]);
    expect(ids(matchStreams(streams, "gw/a/b", true))).toEqual([7]);
  });

  it("never matches command streams, and nothing when no filter matches", () => {
    const commands = [s(4, 2, "#"), s(6, 4, "#")];
    expect(matchStreams(commands, "data", false)).toEqual([]);
    expect(matchStreams(commands, "data", true)).toEqual([]);
    expect(matchStreams([s(1, 1, "data")], "data/x", false)).toEqual([]);
    expect(matchStreams([s(1, 1, "data")], "Data", false)).toEqual([]);
    expect(matchStreams([], "data", false)).toEqual([]);
  });
});
