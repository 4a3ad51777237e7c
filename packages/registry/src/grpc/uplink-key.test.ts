import { describe, expect, it } from "vitest";
import { uplinkMsgKey } from "./uplink-key.js";

describe("uplinkMsgKey", () => {
  it("keys an uplink by its adapter instance and sequence number", () => {
    expect(uplinkMsgKey("mqtt-a", 7n, 3, "")).toBe("mqtt-a:7");
    expect(uplinkMsgKey("lora-a", 7n, 3, '{"devAddr":"26011b01","fCnt":2}')).toBe("lora-a:7");
  });

  it("keys a LoRaWAN frame that names itself by device and frame, whichever process sent it", () => {
    const metadata = '{"devAddr":"26011b01","fCnt":2,"frameId":"26011b01:2:a1b2c3d4"}';
    expect(uplinkMsgKey("lora-a", 7n, 3, metadata)).toBe("lora:3:26011b01:2:a1b2c3d4");
    expect(uplinkMsgKey("lora-b", 1n, 3, metadata)).toBe(uplinkMsgKey("lora-a", 7n, 3, metadata));
  });

  it("falls back to the sequence key for metadata that is not JSON or whose frameId is no short string", () => {
    expect(uplinkMsgKey("a", 1n, 3, '{"frameId":')).toBe("a:1");
    expect(uplinkMsgKey("a", 1n, 3, '{"frameId":42}')).toBe("a:1");
    expect(uplinkMsgKey("a", 1n, 3, `{"frameId":"${"x".repeat(65)}"}`)).toBe("a:1");
  });
});
