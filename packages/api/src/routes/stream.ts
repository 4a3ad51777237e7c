import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { EVENT_TYPES, feedSignal, fail, newestEventId, readEvents } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { ApiRouter } from "../router.js";

/** Defaults of AppDeps.stream: a keepalive comment every 15 s, resume at most 10,000 events back, poll every 500 ms. */
const STREAM_DEFAULTS = { keepaliveMs: 15_000, resumeMax: 10_000, pollMs: 500 };
/** Shortest time between two reads of one stream, ms. */
const MIN_READ_MS = 25;
/** Most events read and written in one go. */
const PAGE = 500;

const csv = (what: string) =>
  z
    .string()
    .max(2000)
    .transform((s) =>
      s
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .describe(`comma-separated ${what}`);

const streamQuery = z.object({
  eventTypes: csv("event types")
    .refine((l) => l.every((t) => (EVENT_TYPES as readonly string[]).includes(t)), {
      message: `must be among ${EVENT_TYPES.join(", ")}`,
    })
    .optional(),
  productID: csv("productIDs").optional(),
  deviceID: csv("deviceIDs").optional(),
  /** For clients that cannot set the Last-Event-ID header. */
  lastEventID: z
    .string()
    .regex(/^\d{1,15}$/, "must be an event id")
    .optional(),
});

/**
 * `GET /stream`: the caller's tenant's events as Server-Sent Events (`id:` the event id, `event:` its type, `data:`
 * the event as JSON), filtered by `eventTypes`, `productID`, `deviceID` (comma-separated). `Last-Event-ID` (header,
 * or `lastEventID` query) resumes after that event when it is within the last `resumeMax` events and the outbox
 * retention; older ids resume at the window's start after a `resync` event. Comments (`: keepalive`) keep idle
 * connections open. Any caller role may read it.
 */
export function streamRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  const o = deps.stream ?? STREAM_DEFAULTS;
  return new ApiRouter(docs, "Stream").get(
    "/stream",
    {
      summary: "Live events of the caller's tenant (text/event-stream); Last-Event-ID resumes",
      query: streamQuery,
      operationId: "streamEvents",
      response: z.string().describe("Server-Sent Events: `id:` the event id, `event:` its type, `data:` it as JSON"),
      responseType: "text/event-stream",
    },
    async (c, { query }) => {
      const caller = c.get("caller");
      const header = c.req.header("last-event-id") ?? query.lastEventID;
      if (header !== undefined && !/^\d{1,15}$/.test(header))
        throw fail.form({ "Last-Event-ID": "must be an event id" });
      const newest = await newestEventId(db);
      const windowStart = Math.max(0, newest - o.resumeMax);
      const asked = header === undefined ? undefined : Number(header);
      let cursor = asked === undefined ? newest : Math.max(asked, windowStart);
      const filter = { types: query.eventTypes, productIds: query.productID, deviceIds: query.deviceID };
      return streamSSE(c, async (stream) => {
        let wake: (() => void) | undefined;
        const state = { committed: false };
        const onCommit = () => {
          state.committed = true;
          wake?.();
        };
        feedSignal.on("committed", onCommit);
        stream.onAbort(() => {
          feedSignal.off("committed", onCommit);
          wake?.();
        });
        if (asked !== undefined && asked < windowStart)
          await stream.writeSSE({
            event: "resync",
            data: JSON.stringify({ lastEventID: asked, resumedAfter: cursor }),
          });
        let lastWrite = Date.now();
        try {
          while (!stream.aborted && !stream.closed) {
            state.committed = false;
            const upTo = await newestEventId(db);
            const events = await readEvents(db, {
              ...filter,
              tenantId: caller.tenantId,
              afterId: cursor,
              upToId: upTo,
              limit: PAGE,
            });
            for (const e of events) await stream.writeSSE({ id: String(e.id), event: e.type, data: JSON.stringify(e) });
            if (events.length > 0) lastWrite = Date.now();
            cursor = events.length === PAGE ? events.at(-1)!.id : Math.max(cursor, upTo);
            if (events.length === PAGE) continue;
            if (Date.now() - lastWrite >= o.keepaliveMs) {
              await stream.write(": keepalive\n\n");
              lastWrite = Date.now();
            }
            // At most one read per MIN_READ_MS however often events commit.
            await new Promise((resolve) => setTimeout(resolve, MIN_READ_MS));
            if (state.committed) continue;
            await new Promise<void>((resolve) => {
              const timer = setTimeout(done, Math.min(o.pollMs, o.keepaliveMs));
              wake = done;
              function done() {
                clearTimeout(timer);
                wake = undefined;
                resolve();
              }
            });
          }
        } finally {
          feedSignal.off("committed", onCommit);
        }
      });
    },
  ).app;
}
