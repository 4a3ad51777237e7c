import { describe, expect, it } from "vitest";
import { AdapterMessageSchema, MAX_MESSAGE_BYTES, channelOptions, toBinary } from "@iot/proto";
import { DEFAULT_MAX_MESSAGE_SIZE, MAX_MESSAGE_SIZE_LIMIT, adapterSettings } from "./config.js";
import { uplinkMessage } from "./grpc-convert.js";
import { MAX_TOPIC_BYTES } from "./topics.js";
import { uplinkSizeProblem } from "./uplink-size.js";

const sized = (payloadBytes: number, topic = "t") => ({ topic, payload: new Uint8Array(payloadBytes) });

describe("uplinkSizeProblem", () => {
  it("lets a payload of exactly the limit through and refuses one byte more, naming both sizes", () => {
    expect(uplinkSizeProblem(sized(1000), 1000)).toBeUndefined();
    expect(uplinkSizeProblem(sized(1001), 1000)).toBe(
      "payload of 1001 bytes is larger than the limit of 1000 bytes (IOT_MAX_MESSAGE_SIZE)",
    );
  });

  it("counts topic bytes in UTF-8 and refuses a topic longer than MAX_TOPIC_BYTES", () => {
    expect(uplinkSizeProblem(sized(0, "é".repeat(MAX_TOPIC_BYTES / 2)), 10)).toBeUndefined();
    expect(uplinkSizeProblem(sized(0, "é".repeat(MAX_TOPIC_BYTES / 2 + 1)), 10)).toMatch(/^topic of 1026 bytes/);
  });

  it("lets through no uplink whose registry link message exceeds the link's limit, set on both ends", () => {
    const setting = adapterSettings.maxMessageSize;
    expect(setting.fallback).toBe(DEFAULT_MAX_MESSAGE_SIZE);
    expect(setting.parse(String(MAX_MESSAGE_SIZE_LIMIT))).toBe(MAX_MESSAGE_SIZE_LIMIT);
    expect(() => setting.parse(String(MAX_MESSAGE_SIZE_LIMIT + 1))).toThrow(/from 1 to 4000000/);
    const largest = {
      sessionId: "s".repeat(256),
      tenantId: "t".repeat(256),
      deviceIntId: Number.MAX_SAFE_INTEGER,
      topic: "x".repeat(MAX_TOPIC_BYTES),
      payload: new Uint8Array(MAX_MESSAGE_SIZE_LIMIT),
      qos: 2,
      clientIp: "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255",
      receivedAtMs: Number.MAX_SAFE_INTEGER,
      gatewayDeviceIntId: Number.MAX_SAFE_INTEGER,
    };
    expect(uplinkSizeProblem(largest, MAX_MESSAGE_SIZE_LIMIT)).toBeUndefined();
    const encoded = toBinary(AdapterMessageSchema, uplinkMessage(Number.MAX_SAFE_INTEGER, largest)).byteLength;
    expect(encoded).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(channelOptions["grpc.max_send_message_length"]).toBe(MAX_MESSAGE_BYTES);
    expect(channelOptions["grpc.max_receive_message_length"]).toBe(MAX_MESSAGE_BYTES);
  });
});
