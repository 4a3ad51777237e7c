import { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { RegistryError } from "@iot/registry";

/** The node:http request behind a context served by @hono/node-server (its `env.incoming`), if any. */
function incomingOf(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  return incoming instanceof IncomingMessage ? incoming : undefined;
}

/**
 * The request header `name` (lower case) as `c.req.header(name)` answers it (repeated fields joined with ", "), read
 * from node:http's raw header list when served by it: asking hono for one header makes @hono/node-server build a web
 * Headers object of all of them (2 % of a small REST call's CPU), and three middlewares of every call ask for one.
 */
export function headerOf(c: Context, name: string): string | undefined {
  const incoming = incomingOf(c);
  if (!incoming) return c.req.header(name);
  const raw = incoming.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const field = raw[i]!;
    if (field.length === name.length && field.toLowerCase() === name)
      value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}

/**
 * A body limit that answers from the declared Content-Length when there is one (no chunked body to count), as
 * hono's `bodyLimit` does, but without asking for the request's body first: that makes @hono/node-server build the
 * full web Request with its body stream, a tenth of a small REST call's CPU. Any other request goes to `limit`.
 */
export function declaredBodyLimit(maxBytes: number, limit: MiddlewareHandler): MiddlewareHandler {
  return async (c, next) => {
    const length = headerOf(c, "content-length");
    if (length === undefined || headerOf(c, "transfer-encoding") !== undefined) return limit(c, next);
    if (Number.parseInt(length, 10) > maxBytes) return limit(c, next);
    await next();
  };
}

/** `application/json` or a `+json` type such as `application/merge-patch+json`, whatever its parameters. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * Throws UNSUPPORTED_MEDIA_TYPE (415) unless the request declares a JSON body: a JSON text sent as `text/plain` (what
 * `fetch` declares for a string body) or a form is the client's mistake, told as such rather than guessed at.
 */
export function requireJsonType(c: Context): void {
  const type = headerOf(c, "content-type");
  if (type === undefined || !JSON_TYPE.test(type.trim()))
    throw new RegistryError("UNSUPPORTED_MEDIA_TYPE", {
      "content-type": `must be application/json, not ${type === undefined ? "missing" : type}`,
    });
}

/**
 * The request's JSON body. Served by node:http with a declared length and not read yet, it is read straight from the
 * socket's request (UTF-8, a byte order mark ignored, as `Request.json()` does) instead of through a web Request and
 * its stream; otherwise `c.req.json()`. Throws on a body that is not JSON.
 */
export async function jsonBody(c: Context): Promise<unknown> {
  const incoming = incomingOf(c);
  if (
    !incoming ||
    incoming.readableDidRead ||
    incoming.headers["content-length"] === undefined ||
    incoming.headers["transfer-encoding"] !== undefined
  )
    return c.req.json();
  return JSON.parse(UTF8.decode(await bytesOf(incoming)));
}

/** Decodes as `Request.json()` does: invalid sequences replaced, a byte order mark dropped (it keeps no state). */
const UTF8 = new TextDecoder();

/**
 * The request's body bytes, read with plain stream events: `for await` over the request made an async iterator and a
 * promise per chunk, a few per cent of a small REST call's CPU. Rejects when the client goes away before the end.
 */
function bytesOf(incoming: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let ended = false;
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.once("end", () => {
      ended = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    incoming.once("error", reject);
    incoming.once("close", () => {
      if (!ended) reject(new Error("request body not complete: the client went away"));
    });
  });
}
