import { describe, expect, it } from "vitest";
import { commandPublishProperties } from "./command-properties.js";

describe("commandPublishProperties", () => {
  it("turns the registry's properties into PUBLISH properties, correlation data as its UTF-8 bytes", () => {
    const properties = JSON.stringify({
      userProperties: { a: "1", b: ["2", "3"] },
      contentType: "text/plain",
      payloadFormatIndicator: 1,
      responseTopic: "resp",
      correlationData: "req-é",
    });
    expect(commandPublishProperties({ properties, expiresAtMs: 0 }, 0)).toEqual({
      userProperties: { a: "1", b: ["2", "3"] },
      contentType: "text/plain",
      payloadFormatIndicator: true,
      responseTopic: "resp",
      correlationData: Buffer.from("req-é", "utf8"),
    });
  });

  it("gives the seconds left of the command's TTL, rounded up, as its message expiry interval", () => {
    expect(commandPublishProperties({ expiresAtMs: 10_000 }, 0)).toEqual({ messageExpiryInterval: 10 });
    expect(commandPublishProperties({ expiresAtMs: 10_001 }, 0)).toEqual({ messageExpiryInterval: 11 });
    expect(commandPublishProperties({ expiresAtMs: 10_000 }, 9_999)).toEqual({ messageExpiryInterval: 1 });
    expect(commandPublishProperties({ expiresAtMs: 10_000 }, 10_500)).toEqual({ messageExpiryInterval: 1 });
  });

  it("gives none to a command without properties or expiry", () => {
    expect(commandPublishProperties({ expiresAtMs: 0 }, 0)).toBeUndefined();
    expect(commandPublishProperties({ properties: "{}", expiresAtMs: 0 }, 0)).toBeUndefined();
    expect(commandPublishProperties({ properties: "not json", expiresAtMs: 0 }, 0)).toBeUndefined();
  });
});
