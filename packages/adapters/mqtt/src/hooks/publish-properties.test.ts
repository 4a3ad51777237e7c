import { describe, expect, it } from "vitest";
import { publishPropertiesProblem } from "./publish-properties.js";

describe("publishPropertiesProblem", () => {
  it("accepts the properties a client's PUBLISH may carry, user properties repeated among them", () => {
    expect(publishPropertiesProblem(undefined)).toBeUndefined();
    expect(
      publishPropertiesProblem({
        payloadFormatIndicator: true,
        messageExpiryInterval: 60,
        topicAlias: undefined,
        responseTopic: "reply",
        correlationData: Buffer.from([1, 2]),
        userProperties: { a: ["1", "2"] },
        contentType: "application/json",
      }),
    ).toBeUndefined();
  });

  it("answers 0x81 for a property not valid in PUBLISH, 0x82 for a repeated one or a subscription identifier", () => {
    expect(publishPropertiesProblem({ sessionExpiryInterval: 10 })).toEqual({
      code: 0x81,
      reason: "property sessionExpiryInterval is not valid in PUBLISH",
    });
    expect(publishPropertiesProblem({ contentType: ["a", "b"] })).toEqual({
      code: 0x82,
      reason: "property contentType is included more than once",
    });
    expect(publishPropertiesProblem({ subscriptionIdentifier: 3 })?.code).toBe(0x82);
  });
});
