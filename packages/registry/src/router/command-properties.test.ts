import { describe, expect, it } from "vitest";
import { answerKey, routedProperties, storedCommandProperties, uplinkAnswerKey } from "./command-properties.js";

describe("command properties", () => {
  it("keeps the properties given, and the key of the answer when both a response topic and correlation data are", () => {
    expect(storedCommandProperties(undefined)).toEqual({ properties: null, awaitingAnswer: null });
    expect(storedCommandProperties({ contentType: undefined })).toEqual({ properties: null, awaitingAnswer: null });
    expect(storedCommandProperties({ contentType: "a/b", responseTopic: "r" })).toEqual({
      properties: '{"contentType":"a/b","responseTopic":"r"}',
      awaitingAnswer: null,
    });
    expect(storedCommandProperties({ responseTopic: "r", correlationData: "é1" }).awaitingAnswer).toBe(
      answerKey("r", Buffer.from("é1", "utf8").toString("base64")),
    );
  });

  it("names the response topic of a command its gateway relays under the device's relay prefix", () => {
    expect(routedProperties(null, "devices/d1/")).toBeUndefined();
    expect(routedProperties('{"contentType":"x"}', "devices/d1/")).toBe('{"contentType":"x"}');
    expect(routedProperties('{"responseTopic":"r"}', undefined)).toBe('{"responseTopic":"r"}');
    expect(JSON.parse(routedProperties('{"responseTopic":"r","correlationData":"c"}', "devices/d1/")!)).toEqual({
      responseTopic: "devices/d1/r",
      correlationData: "c",
    });
  });

  it("finds an uplink's answer key in the correlation data of its metadata, and none elsewhere", () => {
    const metadata = JSON.stringify({ userProperties: { a: "b" }, correlationData: "YWJj" });
    expect(uplinkAnswerKey("resp", metadata)).toBe(answerKey("resp", "YWJj"));
    expect(uplinkAnswerKey("resp", null)).toBeUndefined();
    expect(uplinkAnswerKey("resp", '{"gateways":[]}')).toBeUndefined();
    expect(uplinkAnswerKey("resp", '{"userProperties":{"correlationData":"x"}}')).toBeUndefined();
    expect(uplinkAnswerKey("resp", '"correlationData" not json')).toBeUndefined();
  });
});
