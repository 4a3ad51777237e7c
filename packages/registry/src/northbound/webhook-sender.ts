import { createHmac } from "node:crypto";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import type { FeedEvent } from "./events.js";
import { OriginPipeline } from "./http-pipeline.js";
import { isPrivateAddress } from "./private-address.js";

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

/** One pipeline per origin and private-address policy, shared by every webhook delivering there. */
const pipelines = new Map<string, OriginPipeline>();

function pipelineFor(url: URL, allowPrivate: boolean): OriginPipeline {
  const key = `${allowPrivate ? "any" : "public"} ${url.origin}`;
  let p = pipelines.get(key);
  if (p === undefined) {
    p = new OriginPipeline(url, allowPrivate ? {} : { lookup: publicOnlyLookup });
    pipelines.set(key, p);
  }
  return p;
}

/**
 * POSTs one delivery and waits at most `timeoutMs` for the status. Never throws: failures come back as results.
 * Unless `allowPrivate`, the connection resolves the host with publicOnlyLookup (an IP literal host is checked as is).
 * Deliveries to one origin share its kept-alive, pipelined connections (OriginPipeline).
 */
export async function sendDelivery(d: Delivery, timeoutMs: number, allowPrivate: boolean): Promise<AttemptResult> {
  let url: URL;
  try {
    url = new URL(d.url);
  } catch {
    return { ok: false, httpStatus: null, error: "invalid url" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { ok: false, httpStatus: null, error: `unsupported protocol ${url.protocol}` };
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host))
    return { ok: false, httpStatus: null, error: `${host} is a private address` };
  const timestamp = Date.now();
  const body = deliveryBody(d, timestamp);
  const r = await pipelineFor(url, allowPrivate).post(
    `${url.pathname}${url.search}`,
    {
      "content-type": "application/json",
      "user-agent": "iot-webhooks/1",
      [SIGNATURE_HEADER]: signBody(d.secret, body),
      [DELIVERY_HEADER]: headerValue(d.deliveryId),
      [TIMESTAMP_HEADER]: String(timestamp),
      [EVENT_HEADER]: headerValue(d.event.type),
      // Credentials in the URL (https://user:pass@host/…) are sent as Basic authentication, as node:http does.
      ...(url.username || url.password
        ? {
            authorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`,
          }
        : {}),
    },
    body,
    timeoutMs,
  );
  if (r.error !== undefined) return { ok: false, httpStatus: null, error: r.error };
  const ok = r.status >= 200 && r.status < 300;
  return { ok, httpStatus: r.status, error: ok ? null : `answered ${r.status}` };
}

/** A value safe in a header line: no CR or LF (ids and types never have them). */
function headerValue(v: string): string {
  return v.replace(/[\r\n]/g, "");
}
