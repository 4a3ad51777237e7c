import { createHmac } from "node:crypto";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { Agent, type Dispatcher } from "undici";
import type { FeedEvent } from "./events.js";
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

/** Most connections open to one origin at once (requests beyond wait in the origin's queue for the first free one). */
const WEBHOOK_CONNECTIONS_PER_ORIGIN = 32;

/** A kept-alive connection idle this long is closed, ms (less when the receiver's `Keep-Alive: timeout` says so). */
const KEEP_ALIVE_MS = 30_000;

/**
 * Errors of a connection that closed under a request before any answer: a server closing an idle kept-alive
 * connection as the request is written. Such a request is sent once more on a fresh connection (receivers
 * de-duplicate by delivery id, so a second copy is harmless).
 */
const RESEND_ON = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]);

/** One agent per private-address policy and timeout, shared by every webhook: it keeps a pool per origin. */
const agents = new Map<string, Agent>();

/**
 * The agent delivering with `timeoutMs` and `allowPrivate`: HTTP/1.1 (as receivers are documented to need), up to
 * WEBHOOK_CONNECTIONS_PER_ORIGIN kept-alive connections per origin, one request at a time on each (no pipelining: a
 * slow answer then holds only its own connection, and the requests queued behind it go out on the others). Unless
 * `allowPrivate`, connections resolve host names with publicOnlyLookup.
 */
function agentFor(timeoutMs: number, allowPrivate: boolean): Agent {
  const key = `${allowPrivate ? "any" : "public"} ${timeoutMs}`;
  let agent = agents.get(key);
  if (agent === undefined) {
    agent = new Agent({
      allowH2: false,
      pipelining: 1,
      connections: WEBHOOK_CONNECTIONS_PER_ORIGIN,
      keepAliveTimeout: KEEP_ALIVE_MS,
      keepAliveMaxTimeout: KEEP_ALIVE_MS,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: { timeout: timeoutMs, ...(allowPrivate ? {} : { lookup: publicOnlyLookup }) },
    });
    agents.set(key, agent);
  }
  return agent;
}

/**
 * POSTs one delivery and waits at most `timeoutMs` for the connection and then for the answer (counted from when the
 * request is written). Never throws: failures come back as results. Unless `allowPrivate`, the connection resolves
 * the host with publicOnlyLookup (an IP literal host is checked as is). Deliveries to one origin share its kept-alive
 * connections (agentFor).
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
  const request: Dispatcher.DispatchOptions = {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: "POST",
    headers: {
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
  };
  const agent = agentFor(timeoutMs, allowPrivate);
  for (let resent = false; ; resent = true) {
    try {
      const status = await post(agent, request);
      const ok = status >= 200 && status < 300;
      return { ok, httpStatus: status, error: ok ? null : `answered ${status}` };
    } catch (err) {
      if (!resent && RESEND_ON.has((err as { code?: string }).code ?? "")) continue;
      return { ok: false, httpStatus: null, error: failure(err, timeoutMs) };
    }
  }
}

/**
 * Sends one request and answers its final status once the whole answer is read; its body is dropped as it comes.
 * Undici's lower-level `dispatch`, not `request`: no body stream per answer, which measured about 13 % less CPU a
 * delivery (docs/performance.md).
 */
function post(agent: Agent, request: Dispatcher.DispatchOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    let status = 0;
    // Undici checks that each of these is a function, though its types call some optional.
    agent.dispatch(request, {
      onRequestStart: () => {},
      onResponseStart: (_controller, statusCode) => {
        if (statusCode >= 200) status = statusCode; // 1xx are interim: the final answer follows
      },
      onResponseData: () => {},
      onResponseEnd: () => resolve(status),
      onResponseError: (_controller, err) => reject(err),
    });
  });
}

/** What an attempt's error says, kept short (it is stored with the delivery and in `disabledReason`). */
function failure(err: unknown, timeoutMs: number): string {
  const code = (err as { code?: string }).code;
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") return `no answer within ${timeoutMs} ms`;
  if (code === "UND_ERR_CONNECT_TIMEOUT") return `no connection within ${timeoutMs} ms`;
  // A connection trying several addresses fails with all their errors, and a message that may be empty.
  const first = err instanceof AggregateError ? (err.errors[0] as unknown) : err;
  const message = first instanceof Error ? first.message : String(first);
  return (message || code || "failed").slice(0, 300);
}

/** A value safe in a header line: no CR or LF (ids and types never have them). */
function headerValue(v: string): string {
  return v.replace(/[\r\n]/g, "");
}
