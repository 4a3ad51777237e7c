import { createHmac } from "node:crypto";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { FeedEvent } from "./events.js";
import { isPrivateAddress } from "./url-guard.js";

/** Header carrying `sha256=<hex HMAC-SHA256 of the raw body, keyed with the webhook's secret>`. */
export const SIGNATURE_HEADER = "x-iot-signature";
/** Header carrying the delivery id: the same on every retry of one delivery (receivers de-duplicate by it). */
export const DELIVERY_HEADER = "x-iot-delivery";
/** Header carrying the send time, epoch ms (also in the signed body as `timestamp`). */
export const TIMESTAMP_HEADER = "x-iot-timestamp";
/** Header carrying the event type. */
export const EVENT_HEADER = "x-iot-event";

/** What one attempt ended with: a 2xx is delivered; anything else (status, refusal, timeout) is retried. */
export interface AttemptResult {
  ok: boolean;
  httpStatus: number | null;
  error: string | null;
}

/** One delivery to send. */
export interface Delivery {
  url: string;
  secret: string;
  deliveryId: string;
  webhookId: number;
  event: FeedEvent;
}

/** Connections kept open between deliveries (per host), so a busy webhook does not open one per event. */
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/** `sha256=` + hex HMAC-SHA256 of `body` keyed with `secret`: what SIGNATURE_HEADER carries. */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** The JSON body of a delivery: the event, the delivery and webhook ids, and the send time (signed with them). */
export function deliveryBody(d: Delivery, timestamp: number): string {
  return JSON.stringify({ deliveryID: d.deliveryId, webhookID: d.webhookId, timestamp, event: d.event });
}

/**
 * A DNS lookup that fails for private addresses: connections made with it can only reach public ones, whatever the
 * name resolves to at delivery time (a name that turned private after the URL was checked is refused here).
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, "", 0);
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new Error(`${hostname} resolves to private address ${bad.address}`), "", 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0]!;
    return callback(null, first.address, first.family);
  });
};

/**
 * POSTs one delivery and waits at most `timeoutMs` for the status. Never throws: failures come back as results.
 * Unless `allowPrivate`, the connection resolves the host with publicOnlyLookup (an IP literal host is checked as is).
 */
export function sendDelivery(d: Delivery, timeoutMs: number, allowPrivate: boolean): Promise<AttemptResult> {
  const timestamp = Date.now();
  const body = deliveryBody(d, timestamp);
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(d.url);
    } catch {
      return resolve({ ok: false, httpStatus: null, error: "invalid url" });
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    if (!allowPrivate && /^[\d.]+$|:/.test(host) && isPrivateAddress(host))
      return resolve({ ok: false, httpStatus: null, error: `${host} is a private address` });
    const secure = url.protocol === "https:";
    const request = (secure ? https : http).request(url, {
      method: "POST",
      agent: secure ? agents.https : agents.http,
      timeout: timeoutMs,
      ...(allowPrivate ? {} : { lookup: publicOnlyLookup }),
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        "user-agent": "iot-webhooks/1",
        [SIGNATURE_HEADER]: signBody(d.secret, body),
        [DELIVERY_HEADER]: d.deliveryId,
        [TIMESTAMP_HEADER]: String(timestamp),
        [EVENT_HEADER]: d.event.type,
      },
    });
    let settled = false;
    const done = (r: AttemptResult) => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    request.on("timeout", () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on("error", (err) => {
      clearTimeout(timer);
      done({ ok: false, httpStatus: null, error: err.message.slice(0, 300) });
    });
    request.on("response", (res) => {
      clearTimeout(timer);
      res.resume(); // the answer's body is not read: only its status counts
      const status = res.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      done({ ok, httpStatus: status, error: ok ? null : `answered ${status}` });
    });
    request.end(body);
  });
}
