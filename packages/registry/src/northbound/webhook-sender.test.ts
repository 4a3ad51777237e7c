import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { FeedEvent } from "./events.js";
import { DELIVERY_HEADER, deliveryBody, sendDelivery, SIGNATURE_HEADER, signBody } from "./webhook-sender.js";

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

  it("refuses IPv6 literals that embed a loopback address or denote a non-public range before connecting", async () => {
    for (const [url, host] of [
      ["http://[::127.0.0.1]:9/hook", "::7f00:1"],
      ["http://[::ffff:0:127.0.0.1]:9/hook", "::ffff:0:7f00:1"],
      ["http://[64:ff9b::7f00:1]:9/hook", "64:ff9b::7f00:1"],
      ["http://[2001:db8::1]:9/hook", "2001:db8::1"],
    ] as const)
      expect(await sendDelivery(delivery(url), 1_000, false), url).toEqual({
        ok: false,
        httpStatus: null,
        error: `${host} is a private address`,
      });
  });

  it("refuses a host name that resolves to a private address when it connects", async () => {
    const r = await sendDelivery(delivery("http://localhost:9/hook"), 1_000, false);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/localhost resolves to private address/);
  });

  it("delivers many at once to one receiver, each signed with its own id, and tells each its own answer", async () => {
    const seen: Array<{ id: string; signed: boolean; auth: string | undefined }> = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const id = String(req.headers[DELIVERY_HEADER]);
        const signed = req.headers[SIGNATURE_HEADER] === signBody("0123456789abcdef", body);
        seen.push({ id, signed, auth: req.headers.authorization });
        res.writeHead(Number(id.split("-")[1]) % 5 === 0 ? 503 : 200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://app:p%40ss@127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          sendDelivery({ ...delivery(url), deliveryId: `1-${i}`, event: { ...event, id: i } }, 5_000, true),
        ),
      );
      results.forEach((r, i) =>
        expect(r).toEqual(
          i % 5 === 0
            ? { ok: false, httpStatus: 503, error: "answered 503" }
            : { ok: true, httpStatus: 200, error: null },
        ),
      );
      expect(seen.map((s) => s.id).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `1-${i}`).sort());
      expect(seen.every((s) => s.signed)).toBe(true);
      expect(seen[0]!.auth).toBe(`Basic ${Buffer.from("app:p@ss").toString("base64")}`);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
