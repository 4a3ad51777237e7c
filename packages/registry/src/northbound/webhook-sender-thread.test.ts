import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { FeedEvent } from "./events.js";
import { DELIVERY_HEADER, SIGNATURE_HEADER, signBody } from "./webhook-sender.js";
import { WebhookSenderThread } from "./webhook-sender-thread.js";

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
const threads: WebhookSenderThread[] = [];
const thread = () => {
  const t = new WebhookSenderThread();
  threads.push(t);
  return t;
};
afterEach(async () => {
  for (const t of threads.splice(0)) await t.close();
});

describe("webhook sender thread", () => {
  it("posts a signed delivery from its thread and answers the receiver's status", async () => {
    const got: Array<{ body: string; signature: unknown; id: unknown }> = [];
    let status = 204;
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        got.push({ body, signature: req.headers[SIGNATURE_HEADER], id: req.headers[DELIVERY_HEADER] });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      const sender = thread();
      expect(await sender.send(delivery(url), 5_000, true)).toEqual({ ok: true, httpStatus: 204, error: null });
      status = 503;
      expect(await sender.send(delivery(url), 5_000, true)).toEqual({
        ok: false,
        httpStatus: 503,
        error: "answered 503",
      });
      expect(got).toHaveLength(2);
      expect(got[0]!.signature).toBe(signBody("0123456789abcdef", got[0]!.body));
      expect([got[0]!.id, JSON.parse(got[0]!.body).event]).toEqual(["1-9", event]);
    } finally {
      receiver.close();
    }
  });

  it("answers a refused private address as a failed attempt, as sendDelivery does", async () => {
    const r = await thread().send(delivery("http://127.0.0.1:9/hook"), 1_000, false);
    expect(r).toEqual({ ok: false, httpStatus: null, error: "127.0.0.1 is a private address" });
  });

  it("ends deliveries under way as failed attempts when it is closed", async () => {
    const sender = thread();
    const pending = sender.send(delivery("http://192.0.2.1:9/hook"), 10_000, true); // TEST-NET-1: never answers
    await new Promise((r) => setTimeout(r, 200));
    await sender.close();
    expect(await pending).toEqual({ ok: false, httpStatus: null, error: "webhook sender thread stopped" });
  });
});
