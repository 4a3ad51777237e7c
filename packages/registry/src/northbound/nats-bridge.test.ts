import { describe, expect, it } from "vitest";
import { eventSubject, subjectToken } from "./nats-bridge.js";

describe("NATS subjects of events", () => {
  it("names iot.<tenantID>.<type>.<deviceID>", () => {
    expect(eventSubject({ tenantID: "t1", type: "uplink", deviceID: "d-1" })).toBe("iot.t1.uplink.d-1");
  });

  it("turns characters that would split or widen a subject into _, and no device into _", () => {
    expect(subjectToken("a.b c*d>e")).toBe("a_b_c_d_e");
    expect(eventSubject({ tenantID: "t1", type: "alert_opened", deviceID: null })).toBe("iot.t1.alert_opened._");
  });
});
