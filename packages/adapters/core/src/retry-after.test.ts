import { describe, expect, it } from "vitest";
import { retryAfterSeconds } from "./retry-after.js";

describe("retryAfterSeconds", () => {
  it("asks a device to try again in a second after a passing refusal: buffer full, over its rate, registry away", () => {
    for (const code of ["BUFFER_FULL", "RATE_LIMITED", "CLIENT_CLOSED", "UNAVAILABLE"] as const)
      expect(retryAfterSeconds(code), code).toBe(1);
  });

  it("names no time where trying again soon cannot help: a rejected or too large uplink, a tenant at its connection limit, bad credentials", () => {
    for (const code of [
      "UPLINK_REJECTED",
      "MESSAGE_TOO_LARGE",
      "QUOTA_EXCEEDED",
      "BAD_CREDENTIALS",
      "BLOCKED",
    ] as const)
      expect(retryAfterSeconds(code), code).toBeUndefined();
  });
});
