import { describe, expect, it } from "vitest";
import type { FeedEvent } from "./events.js";
import { deliveryBody, sendDelivery, signBody } from "./webhook-sender.js";

const event: FeedEvent = {
  id: 9,
  type: "uplink",
  tenantID: "t1",
  productID: "p",
  deviceID: "d",
  time: 1,
  data: { topic: "up", qos: 1, payload: "" },
};
const delivery = (url: string) => ({ url, secret: "0123456789abcdef", deliveryId: "1-9", webhookId: 1, event });

describe("webhook sender", () => {
  it("puts the delivery id, webhook id, send time and event in the signed body", () => {
    const body = deliveryBody(delivery("https://x.example/"), 1234);
    expect(JSON.parse(body)).toEqual({ deliveryID: "1-9", webhookID: 1, timestamp: 1234, event });
    expect(signBody("k", body)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it("refuses to connect to a private address literal unless private targets are allowed", async () => {
    const r = await sendDelivery(delivery("http://127.0.0.1:9/hook"), 1_000, false);
    expect(r).toEqual({ ok: false, httpStatus: null, error: "127.0.0.1 is a private address" });
  });

  it("refuses a host name that resolves to a private address when it connects", async () => {
    const r = await sendDelivery(delivery("http://localhost:9/hook"), 1_000, false);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/localhost resolves to private address/);
  });
});
