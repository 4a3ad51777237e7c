import { describe, expect, it } from "vitest";
import { dispatchDownlink } from "./downlink-dispatch.js";
import type { Downlink } from "./registry-client.js";

const downlink: Downlink = { id: 1, deviceIntId: 2, topic: "", payload: new Uint8Array(), qos: 1, expiresAtMs: 0 };

describe("dispatchDownlink", () => {
  it("returns the protocol handler's outcome", async () => {
    await expect(dispatchDownlink({ downlink: async () => ({ status: "SENT" }) }, downlink)).resolves.toEqual({
      status: "SENT",
    });
  });

  it("fails an expired command without calling the handler", async () => {
    let called = false;
    const out = await dispatchDownlink(
      { downlink: async () => ((called = true), { status: "SENT" }) },
      { ...downlink, expiresAtMs: 100 },
      200,
    );
    expect(out).toEqual({ status: "FAILED", message: "expired before delivery" });
    expect(called).toBe(false);
  });

  it("turns a missing or throwing handler into FAILED", async () => {
    await expect(dispatchDownlink({}, downlink)).resolves.toMatchObject({ status: "FAILED" });
    const out = await dispatchDownlink(
      {
        downlink: async () => {
          throw new Error("socket gone");
        },
      },
      downlink,
    );
    expect(out).toEqual({ status: "FAILED", message: "delivery failed: socket gone" });
  });
});
