import { useEffect } from "preact/hooks";
import { session } from "./api.ts";

/** Pages to refresh when the live stream says something happened. */
const listeners = new Set<() => void>();
/** idle: not connected; open: reading; off: the service has no stream (the pages poll). */
let state: "idle" | "open" | "off" = "idle";
let abort: AbortController | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;

/** Tells every listener, at most every 300 ms (a burst of uplinks refreshes once). */
function notify(): void {
  if (timer) return;
  timer = setTimeout(() => {
    timer = undefined;
    for (const l of listeners) l();
  }, 300);
}

/**
 * Reads the tenant's live event stream (`GET /api/v1/stream`, Server-Sent Events) with fetch, since an EventSource
 * cannot send the bearer token; any event refreshes the pages listening. A service without the stream (404, 405,
 * 501) is left alone for this session and the pages keep polling; a dropped stream is opened again after 5 s.
 */
async function open(): Promise<void> {
  if (state !== "idle" || !session.token) return;
  state = "open";
  abort = new AbortController();
  try {
    const res = await fetch("/api/v1/stream", {
      headers: { authorization: `Bearer ${session.token}`, accept: "text/event-stream" },
      signal: abort.signal,
    });
    if ([404, 405, 501].includes(res.status)) {
      state = "off";
      return;
    }
    if (res.ok && res.body) {
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
          if (/^data:/m.test(buffer.slice(0, end))) notify();
          buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
        }
      }
    }
  } catch {
    // Dropped or aborted: tried again below unless logged out.
  }
  state = "idle";
  if (session.token && listeners.size > 0) setTimeout(() => void open(), 5000);
}

session.onChange(() => {
  if (!session.token) abort?.abort();
});

/** Calls `refresh` whenever the live stream reports an event (uplinks, status changes, command results, alerts). */
export function useLive(refresh: () => void): void {
  useEffect(() => {
    listeners.add(refresh);
    void open();
    return () => void listeners.delete(refresh);
  }, [refresh]);
}
