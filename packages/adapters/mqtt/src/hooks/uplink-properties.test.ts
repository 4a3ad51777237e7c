import { describe, expect, it } from "vitest";
import { keptProperties, MAX_KEPT_PROPERTIES_BYTES } from "./uplink-properties.js";

describe("keptProperties", () => {
  it("keeps user properties, content type, payload format indicator and the request/response pair as JSON", () => {
    const kept = keptProperties({
      userProperties: { unit: "C", tag: ["a", "b"] },
      contentType: "application/json",
      payloadFormatIndicator: true,
      responseTopic: "resp",
      correlationData: Buffer.from([0, 1, 255]),
    });
    expect(kept).toEqual({ metadata: expect.any(String) });
    expect(JSON.parse((kept as { metadata: string }).metadata)).toEqual({
      userProperties: { unit: "C", tag: ["a", "b"] },
      contentType: "application/json",
      payloadFormatIndicator: 1,
      responseTopic: "resp",
      correlationData: "AAH/",
    });
  });

  it("keeps nothing of a publish without those properties (a topic alias, a message expiry, none at all)", () => {
    expect(keptProperties(undefined)).toBeUndefined();
    expect(keptProperties({})).toBeUndefined();
    expect(keptProperties({ topicAlias: undefined, messageExpiryInterval: 60 } as object)).toBeUndefined();
    expect(keptProperties({ payloadFormatIndicator: false })).toEqual({ metadata: '{"payloadFormatIndicator":0}' });
  });

  it("measures the JSON text, escapes included, against the bound", () => {
    const fits = { userProperties: { k: "x".repeat(MAX_KEPT_PROPERTIES_BYTES - 30) } };
    expect(keptProperties(fits)).toHaveProperty("metadata");
    // 2,000 control characters are 2,000 bytes on the wire and 12,000 as JSON.
    const escaped = keptProperties({ userProperties: { k: "\u0001".repeat(2000) } });
    expect(escaped).toEqual({ tooLarge: 12_000 + '{"userProperties":{"k":""}}'.length });
  });
});
