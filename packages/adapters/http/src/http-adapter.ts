import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "pino";
import {
  AdapterError,
  DeviceLeases,
  Lease,
  retryAfterSeconds,
  type DownlinkOutcome,
  type LeaseRefusal,
  type RegistryClient,
  type UplinkResend,
} from "@iot/adapter-core";
import { parseBasicAuth } from "@iot/config";

/** What the HTTP device adapter needs from outside. */
export interface HttpAdapterOptions {
  readonly registry: RegistryClient;
  readonly logger: Logger;
  readonly policyDefault: "allow" | "deny";
  /** Seconds a device counts as online after its last request. */
  readonly keepAliveSeconds: number;
  /** IOT_MAX_MESSAGE_SIZE: largest uplink body, bytes; a larger one answers 413 before it is read. */
  readonly maxMessageSize: number;
  /** Longest `?wait=`, seconds. */
  readonly maxWaitSeconds: number;
}

/** HTTP front for devices: serves requests handed to it by any node:http server. */
export interface HttpAdapter {
  handle(this: void, req: IncomingMessage, res: ServerResponse): void;
  /** Ends every device session (waiting polls answer 503). */
  close(): void;
  readonly leases: DeviceLeases;
}

const PREFIX = "/topics/";
/**
 * A request target that is a plain topic path: no query, fragment or percent-encoding, nothing the URL parser would
 * change but dot segments (checked apart). Such a target is its own pathname.
 */
const PLAIN_TOPIC_TARGET = /^\/topics\/[\w\-.~!$&'()*+,;=:@/]*$/;

/**
 * A refusal answered to the device: status, a stable code and a message for humans, and for a passing reason the
 * seconds after which to try again (`Retry-After`, see `retryAfterSeconds`).
 */
class Refusal {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly message: string,
    readonly retryAfter?: number,
  ) {}
}

/** How each core refusal reads over HTTP. */
function refusalOf(r: LeaseRefusal): Refusal {
  if (r.kind === "topic") return new Refusal(400, "BAD_TOPIC", r.message);
  if (r.kind === "policy") return new Refusal(403, "DENIED_BY_POLICY", r.message);
  if (r.code === "BAD_CREDENTIALS") return new Refusal(401, "AUTH_FAILED", "unknown username or wrong token");
  if (r.code === "UNAVAILABLE")
    return new Refusal(503, r.code, "the registry cannot be reached; try again", retryAfterSeconds(r.code));
  if (r.code === "QUOTA_EXCEEDED") return new Refusal(503, r.code, "the tenant's connection limit is reached");
  return new Refusal(403, r.code, r.message);
}

/** Longest Idempotency-Key accepted, characters. */
const MAX_IDEMPOTENCY_KEY = 128;

/**
 * An `Idempotency-Key` header (draft-ietf-httpapi-idempotency-key-header: a string, quoted or not) as the message's
 * resend identity: a POST with a key the device used for the same topic and body less than 247 s before is answered
 * 204 without being stored again, so a device may retry a POST whose answer it never got (the adapter died). Without
 * the header nothing tells a retry from a new message.
 */
function resendOf(header: string | string[] | undefined): UplinkResend | Refusal | undefined {
  if (header === undefined) return undefined;
  const key = (Array.isArray(header) ? header.join(",") : header).replace(/^"(.*)"$/, "$1");
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY || !/^[\x21-\x7e]+$/.test(key))
    return new Refusal(
      400,
      "BAD_IDEMPOTENCY_KEY",
      `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY} visible ASCII characters`,
    );
  return { id: `http:${key}`, maybe: true };
}

function send(res: ServerResponse, r: Refusal): void {
  if (res.headersSent) return;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (r.status === 401) headers["www-authenticate"] = 'Basic realm="iot-devices"';
  if (r.retryAfter !== undefined) headers["retry-after"] = String(r.retryAfter);
  res.writeHead(r.status, headers).end(JSON.stringify({ error: r.code, message: r.message }));
}

/** The device's address without the IPv4-mapped prefix. */
function clientIpOf(req: IncomingMessage): string {
  const raw = req.socket.remoteAddress ?? "";
  return raw.startsWith("::ffff:") ? raw.slice(7) : raw;
}

/** A body refused for its size: the length it declared, or the bytes it had sent when it passed the limit. */
interface TooLarge {
  readonly declaredBytes?: number;
  readonly receivedBytes?: number;
}

/**
 * Reads the body and hands `done` the body, or TooLarge once it passes `limit` bytes: at once when Content-Length
 * declares more (nothing is read), else as soon as a chunked or undeclared body's bytes pass it (at most `limit` bytes
 * are held); or the request stream's error. A callback, not a promise: this is every publish's path.
 */
function readBody(req: IncomingMessage, limit: number, done: (body: Buffer | TooLarge | Error) => void): void {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) return done({ declaredBytes: declared });
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false; // done was called: what the stream does next is not this body's
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      req.removeAllListeners("data");
      req.pause();
      over = true;
      done({ receivedBytes: size });
    } else chunks.push(chunk);
  });
  req.on("end", () => {
    if (over) return;
    over = true;
    done(Buffer.concat(chunks));
  });
  req.on("error", (err) => {
    if (over) return;
    over = true;
    done(err);
  });
}

/** Longest time a refused body's rest is read and dropped before its connection is cut, ms. */
const LINGER_MS = 2_000;
/** Most bytes of a refused body's rest dropped before the adapter half-closes its connection. */
const LINGER_BYTES = 1 << 20;

/**
 * Reads and drops the rest of a refused body instead of closing its connection at once: a socket closed with unread
 * bytes makes the kernel answer RST, which throws away the 413 the client has not read yet (curl then reported only
 * its 100 Continue). A body that ends leaves the connection usable; one that goes on past LINGER_BYTES gets a FIN
 * after the answer, and the socket is cut after LINGER_MS whatever the client does.
 */
function dropRestOfBody(req: IncomingMessage): void {
  if (req.complete) return;
  const socket = req.socket;
  const cut = setTimeout(() => socket.destroy(), LINGER_MS);
  let dropped = 0;
  req.removeAllListeners("data");
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES && !socket.writableEnded) socket.end();
  });
  req.once("close", () => clearTimeout(cut));
  req.resume();
}

/**
 * Builds the adapter: `POST /topics/<topic>` publishes the body (answered
 * 204 after the registry's durable write); `GET /topics/<filter>?wait=<s>`
 * answers the next command on a matching topic (200, the payload as the body,
 * its topic and id in headers), waiting up to `wait` seconds (204 when none
 * came). Devices authenticate with Basic deviceUsername:token on every request;
 * the session behind them is a core lease, so only the first request of a
 * session asks the registry.
 */
export function createHttpAdapter(options: HttpAdapterOptions): HttpAdapter {
  const log = options.logger.child({ component: "http-adapter" });
  const leases = new DeviceLeases({
    registry: options.registry,
    protocol: "http",
    logger: log,
    keepAliveSeconds: options.keepAliveSeconds,
    policyDefault: options.policyDefault,
  });
  options.registry.setHandlers(leases.handlers());

  /**
   * The lease of each keep-alive connection's last request, with the Authorization header it came with: a device's
   * next request on the connection with the same header uses it while it is open, without decoding the credentials
   * and looking them up again (what `leases.acquire` would answer: the open lease of those credentials).
   */
  const connectionLeases = new WeakMap<Socket, { readonly authorization: string; readonly lease: Lease }>();

  /** A request failed in the adapter (not the device's fault): logged, answered 500. */
  const failed = (res: ServerResponse, err: unknown): void => {
    log.error({ err }, "request failed");
    send(res, new Refusal(500, "INTERNAL_ERROR", "the request could not be handled"));
  };

  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    const target = req.url ?? "/";
    let url: URL | undefined;
    let topic: string;
    if (PLAIN_TOPIC_TARGET.test(target) && !target.includes("/.")) {
      // The usual publish: a topic path without query, percent-encoding or dot segments is its own pathname.
      topic = target.slice(PREFIX.length);
    } else {
      try {
        url = new URL(target, "http://device");
      } catch {
        // A target such as "//%zz": a host that cannot be parsed, which is the client's error, not the adapter's.
        return send(res, new Refusal(400, "BAD_PATH", "the request target is not a valid path"));
      }
      if (!url.pathname.startsWith(PREFIX))
        return send(res, new Refusal(404, "NOT_FOUND", `no such path; use ${PREFIX}<topic>`));
      topic = url.pathname.slice(PREFIX.length);
    }
    if (req.method !== "POST" && req.method !== "GET") {
      res.setHeader("allow", "GET, POST");
      return send(res, new Refusal(405, "METHOD_NOT_ALLOWED", "use POST to publish and GET to receive commands"));
    }
    if (url !== undefined) {
      try {
        topic = decodeURIComponent(topic);
      } catch {
        return send(res, new Refusal(400, "BAD_TOPIC", "the topic is not valid percent-encoding"));
      }
    }
    const authorization = req.headers.authorization;
    const last = connectionLeases.get(req.socket);
    if (last !== undefined && last.authorization === authorization && !last.lease.closed) {
      const wait = req.method === "GET" ? waitOf(url, options.maxWaitSeconds) : 0;
      if (wait instanceof Refusal) return send(res, wait);
      return serveLeased(last.lease, topic, wait, req, res);
    }
    const basic = parseBasicAuth(authorization);
    if (!basic)
      return send(res, new Refusal(401, "AUTH_FAILED", "send Authorization: Basic base64(deviceUsername:token)"));
    const wait = req.method === "GET" ? waitOf(url, options.maxWaitSeconds) : 0;
    if (wait instanceof Refusal) return send(res, wait);
    leases
      .acquire({ kind: "token", clientId: "", username: basic.username, token: basic.password }, clientIpOf(req))
      .then((lease) => {
        if (!(lease instanceof Lease)) return send(res, refusalOf(lease));
        connectionLeases.set(req.socket, { authorization: authorization!, lease });
        serveLeased(lease, topic, wait, req, res);
      })
      .catch((err: unknown) => failed(res, err));
  };

  /** A request whose credentials gave `lease`: its publish or its poll. */
  const serveLeased = (lease: Lease, topic: string, wait: number, req: IncomingMessage, res: ServerResponse): void => {
    if (req.method === "POST") return publish(lease, topic, req, res);
    lease.touch();
    poll(lease, topic, wait, res);
  };

  const publish = (lease: Lease, topic: string, req: IncomingMessage, res: ServerResponse): void => {
    const resend = resendOf(req.headers["idempotency-key"]);
    if (resend instanceof Refusal) {
      lease.touch();
      return send(res, resend);
    }
    const limit = options.maxMessageSize;
    readBody(req, limit, (body) => {
      try {
        if (body instanceof Error) return failed(res, body);
        if (!(body instanceof Buffer)) {
          lease.touch();
          const { device } = lease.session;
          log.warn(
            {
              deviceId: device.deviceId,
              tenantId: device.tenantId,
              ip: clientIpOf(req),
              topic,
              ...body,
              limitBytes: limit,
            },
            "message too large; refused",
          );
          send(res, new Refusal(413, "TOO_LARGE", `the body is larger than ${limit} bytes (IOT_MAX_MESSAGE_SIZE)`));
          return dropRestOfBody(req);
        }
        const refused = lease.publishThen(topic, body, 1, resend, (err) => published(err, lease, topic, res));
        if (refused) send(res, refusalOf(refused));
      } catch (err) {
        failed(res, err);
      }
    });
  };

  /** The answer to a publish the registry settled: 204 once stored, else why not. */
  const published = (err: Error | undefined, lease: Lease, topic: string, res: ServerResponse): void => {
    try {
      if (err === undefined) {
        res.writeHead(204).end();
        return;
      }
      if (!(err instanceof AdapterError)) return failed(res, err);
      // Over the tenant's uplink rate: 429, logged by the registry client once per tenant every 10 s.
      if (err.code === "RATE_LIMITED")
        return send(res, new Refusal(429, err.code, "tenant over its uplink rate", retryAfterSeconds(err.code)));
      log.warn({ deviceId: lease.session.device.deviceId, topic, err: err.message }, "uplink not stored");
      send(
        res,
        err.code === "UPLINK_REJECTED"
          ? new Refusal(400, err.code, err.message)
          : err.code === "MESSAGE_TOO_LARGE"
            ? new Refusal(413, "TOO_LARGE", err.message)
            : new Refusal(503, err.code, "not stored; try again", retryAfterSeconds(err.code)),
      );
    } catch (thrown) {
      failed(res, thrown);
    }
  };

  const poll = (lease: Lease, filter: string, waitSeconds: number, res: ServerResponse): void => {
    const release = lease.hold();
    let timer: NodeJS.Timeout | undefined;
    let stop: (() => void) | undefined;
    let done = false;
    const finish = () => {
      done = true;
      clearTimeout(timer);
      stop?.();
      release();
    };
    const consumed = lease.consume(
      filter,
      (downlink, topic) =>
        new Promise<DownlinkOutcome>((settle) => {
          if (done || res.destroyed) return settle({ status: "FAILED", message: "the device stopped waiting" });
          finish();
          res.on("finish", () => settle({ status: "DELIVERED" }));
          res.on("close", () =>
            settle({ status: "FAILED", message: "the device went away before the answer was sent" }),
          );
          res
            .writeHead(200, {
              "content-type": "application/octet-stream",
              "x-topic": encodeURIComponent(topic),
              "x-command-id": String(downlink.id),
            })
            .end(Buffer.from(downlink.payload));
        }),
      (reason) => {
        if (done) return;
        finish();
        send(
          res,
          reason.startsWith("kicked")
            ? new Refusal(401, "SESSION_ENDED", reason)
            : new Refusal(503, "SESSION_ENDED", reason),
        );
      },
      true,
    );
    if (typeof consumed !== "function") {
      release();
      return send(res, refusalOf(consumed));
    }
    stop = consumed;
    if (done) return; // a waiting command was handed over at once
    if (waitSeconds === 0) {
      finish();
      res.writeHead(204).end();
      return;
    }
    timer = setTimeout(() => {
      finish();
      res.writeHead(204).end();
    }, waitSeconds * 1000);
    // The device gave up (closed the connection) before anything came.
    res.once("close", () => {
      if (!done) finish();
    });
  };

  return {
    handle(req, res) {
      try {
        serve(req, res);
      } catch (err) {
        failed(res, err);
      }
    },
    close: () => leases.closeAll("adapter shutting down"),
    leases,
  };
}

/** `?wait=` in whole seconds, 0..max (default 0: answer at once; a target without a query has none). */
function waitOf(url: URL | undefined, max: number): number | Refusal {
  const raw = url?.searchParams.get("wait") ?? null;
  if (raw === null || raw === "") return 0;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) > max)
    return new Refusal(400, "BAD_WAIT", `wait must be whole seconds from 0 to ${max}`);
  return Number(raw);
}
