import { describe, expect, it } from "vitest";
import { RegistryError } from "../errors.js";
import { pointRule } from "../pipeline/rules/fixtures.js";
import { commandTopic, type CommandPoint, type CommandStream } from "./command-payload.js";

let nextId = 1;
/** A command point: numeric and commandable (dataTransType 2) unless `over` says otherwise. */
const point = (dataPointId: string, over: Partial<CommandPoint> = {}): CommandPoint => ({
  ...pointRule({ id: nextId++, dataPointId, dataPointName: dataPointId }),
  binarySize: null,
  dataTransType: 2,
  ...over,
});
const stream = (topic: string, points: CommandPoint[], streamDataType = 1): CommandStream => ({
  id: nextId++,
  streamDataType,
  topic,
  points,
});

const speed = point("speed", { pointDataType: 16, lowerLimit: 0, upperLimit: 100 });
const mode = point("mode", { pointDataType: 3, enum: '["auto","manual"]' });
const power = point("power", { pointDataType: 5, dataTransType: 3 });
const reading = point("reading", { dataTransType: 1 });
const brightness = point("brightness", { pointDataType: 15 });
const motor = stream("cmd/motor", [speed, mode, power, reading]);
const lamp = stream("cmd/lamp", [brightness, power]);
const streams = [motor, lamp];

/** The FORM_INVALID errors `commandTopic` throws, or fails the test. */
function errorsOf(fn: () => unknown): Record<string, string> | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RegistryError);
    expect((err as RegistryError).code).toBe("FORM_INVALID");
    return (err as RegistryError).errors;
  }
  expect.fail("expected FORM_INVALID");
}

describe("commandTopic", () => {
  it("sends a command without a topic to the command stream holding all its points", () => {
    expect(commandTopic(streams, JSON.stringify({ speed: 40, mode: "auto" }), undefined)).toBe("cmd/motor");
    expect(commandTopic(streams, JSON.stringify({ brightness: -3 }), undefined)).toBe("cmd/lamp");
  });

  it("picks the first stream holding every point when a point is in several", () => {
    expect(commandTopic(streams, JSON.stringify({ power: true }), undefined)).toBe("cmd/motor");
    expect(commandTopic(streams, JSON.stringify({ power: 1, brightness: 2 }), undefined)).toBe("cmd/lamp");
  });

  it("keeps the topic given when it is a command stream's and the payload fits that stream", () => {
    expect(commandTopic(streams, JSON.stringify({ power: false }), "cmd/lamp")).toBe("cmd/lamp");
  });

  it("refuses a value outside the point's limits, naming the point and the limit", () => {
    expect(errorsOf(() => commandTopic(streams, JSON.stringify({ speed: 101 }), undefined))).toEqual({
      "payload.speed": "must be at most 100 (upperLimit)",
    });
    expect(errorsOf(() => commandTopic(streams, '{"speed": -1}', undefined))).toEqual({
      "payload.speed": "must not be negative",
    });
  });

  it("refuses a value outside the point's enum, listing the allowed values", () => {
    expect(errorsOf(() => commandTopic(streams, JSON.stringify({ mode: "turbo" }), undefined))).toEqual({
      "payload.mode": "must be one of auto, manual (enum)",
    });
  });

  it("refuses a value of the wrong type with the decoder's reason, and a null value", () => {
    expect(errorsOf(() => commandTopic(streams, JSON.stringify({ speed: "fast", power: null }), undefined))).toEqual({
      "payload.speed": "must be an integer",
      "payload.power": "must have a value (null is none)",
    });
  });

  it("refuses members that are not command points, and report-only points", () => {
    expect(errorsOf(() => commandTopic(streams, JSON.stringify({ speed: 1, colour: "red" }), undefined))).toEqual({
      "payload.colour": "is not a data point of the product's command streams",
    });
    expect(errorsOf(() => commandTopic(streams, JSON.stringify({ reading: 3 }), undefined))).toEqual({
      "payload.reading": "is a report-only data point (dataTransType 1)",
    });
  });

  it("refuses a point of another stream than the one of the topic given", () => {
    expect(errorsOf(() => commandTopic(streams, JSON.stringify({ speed: 1 }), "cmd/lamp"))).toEqual({
      "payload.speed": "is not a data point of the command stream on topic cmd/lamp",
    });
  });

  it("asks for a topic when the points are in different streams", () => {
    expect(errorsOf(() => commandTopic(streams, JSON.stringify({ speed: 1, brightness: 2 }), undefined))).toEqual({
      topic: "required: speed, brightness are not all in one command stream",
    });
  });

  it("refuses an empty object", () => {
    expect(errorsOf(() => commandTopic(streams, "{}", undefined))).toEqual({
      payload: "must name at least one command data point",
    });
  });

  it("names at most 20 bad members", () => {
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`x${i}`, i]));
    expect(Object.keys(errorsOf(() => commandTopic(streams, JSON.stringify(many), undefined))!)).toHaveLength(20);
  });

  it("leaves opaque a payload that is not a JSON object, whatever the streams", () => {
    for (const payload of ["on", "42", '"text"', "[1,2]", "null", "{broken"])
      expect(commandTopic(streams, payload, undefined)).toBeUndefined();
  });

  it("leaves opaque a command to a topic that is no command stream's, and any command without JSON streams", () => {
    expect(commandTopic(streams, JSON.stringify({ anything: 1 }), "inbox")).toBe("inbox");
    expect(commandTopic([], JSON.stringify({ anything: 1 }), undefined)).toBeUndefined();
    const binary = stream("cmd/raw", [speed], 2);
    expect(commandTopic([binary], JSON.stringify({ speed: 1000 }), undefined)).toBeUndefined();
  });
});
