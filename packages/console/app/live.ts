import { useEffect, useRef, useState } from "preact/hooks";
import { session, type Rec } from "./api.ts";

/** One event of the tenant's live stream (docs/northbound.md); `open` is the console's own: the stream (re)opened. */
export interface LiveEvent {
  id: number;
  type: "uplink" | "decoded" | "online" | "offline" | "command_result" | "alert_opened" | "alert_closed" | "open";
  productID: string | null;
  deviceID: string | null;
  /** Epoch ms of when it happened. */
  time: number;
  data: Rec;
}

/** idle: not connected; open: reading; off: the service has no stream (pages poll instead). */
export type LiveState = "idle" | "open" | "off";

const handlers = new Set<(e: LiveEvent) => void>();
const stateListeners = new Set<() => void>();
let state: LiveState = "idle";
let abort: AbortController | undefined;
/** The id of the last event read (0: none yet): a reopened stream resumes after it. */
let lastEventId = 0;

function setState(s: LiveState): void {
  state = s;
  for (const l of stateListeners) l();
}

function dispatch(e: LiveEvent): void {
  if (e.id > lastEventId) lastEventId = e.id;
  for (const h of handlers) h(e);
}

/** The console's own `open` event: pages read their data again. */
const opened = (): LiveEvent => ({ id: 0, type: "open", productID: null, deviceID: null, time: Date.now(), data: {} });

/**
 * The event of one Server-Sent Events frame, or undefined for comments (keepalives) and frames without JSON. A
 * `resync` frame (the service could not resume where the console stopped) is an `open`: pages read their data again.
 */
function parseFrame(frame: string): LiveEvent | undefined {
  const lines = frame.split(/\r?\n/);
  if (lines.some((l) => /^event: ?resync$/.test(l))) return opened();
  const data = lines
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5).replace(/^ /, ""))
    .join("\n");
  if (!data) return undefined;
  try {
    return JSON.parse(data) as LiveEvent;
  } catch {
    return undefined;
  }
}

/**
 * Reads the tenant's live event stream (`GET /api/v1/stream`, Server-Sent Events) with fetch, since an EventSource
 * cannot send the bearer token, and hands each event to the pages listening. When it first opens, pages are told
 * (`open`) so they load once what happened before. A dropped stream is opened again after 5 s with `Last-Event-ID`,
 * so the service sends what was missed meanwhile and pages apply it in place; reading their lists again instead
 * overwrote the events that arrived while those reads ran. Only when the service cannot resume that far back (a
 * `resync` frame) do pages read again. A service without the stream (404, 405, 501) is left alone for this session
 * and the pages poll.
 */
async function open(): Promise<void> {
  if (state !== "idle" || !session.token) return;
  setState("open");
  abort = new AbortController();
  const resumed = lastEventId > 0;
  try {
    const res = await fetch("/api/v1/stream", {
      headers: {
        authorization: `Bearer ${session.token}`,
        accept: "text/event-stream",
        ...(resumed ? { "last-event-id": String(lastEventId) } : {}),
      },
      signal: abort.signal,
    });
    if ([404, 405, 501].includes(res.status)) {
      setState("off");
      return;
    }
    if (res.ok && res.body) {
      if (!resumed) dispatch(opened());
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
          const event = parseFrame(buffer.slice(0, end));
          buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
          if (event) dispatch(event);
        }
      }
    }
  } catch {
    // Dropped or aborted: tried again below unless logged out.
  }
  setState("idle");
  if (session.token && handlers.size > 0) setTimeout(() => void open(), 5000);
}

session.onChange(() => {
  if (session.token) return;
  abort?.abort();
  // Another login (maybe of another tenant) starts afresh.
  lastEventId = 0;
});

/** Calls `handle` with every live event while the component is shown (the latest `handle`, no re-subscribing). */
export function useLiveEvents(handle: (e: LiveEvent) => void): void {
  const ref = useRef(handle);
  ref.current = handle;
  useEffect(() => {
    const h = (e: LiveEvent) => ref.current(e);
    handlers.add(h);
    void open();
    return () => void handlers.delete(h);
  }, []);
}

/** The stream's state, re-rendering on change: pages poll only while it is not open. */
export function useLiveState(): LiveState {
  const [, set] = useState(0);
  useEffect(() => {
    const l = () => set((n) => n + 1);
    stateListeners.add(l);
    return () => void stateListeners.delete(l);
  }, []);
  return state;
}

/**
 * Calls `refresh` (at most every 300 ms: a burst of uplinks refreshes once) on the live events `which` accepts (every
 * one by default, and always when the stream opens), for lists whose rows such events change; nothing when
 * `refresh` is undefined.
 */
export function useLive(refresh: (() => void) | undefined, which?: (e: LiveEvent) => boolean): void {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useLiveEvents((e) => {
    if (!refresh || timer.current || (which && e.type !== "open" && !which(e))) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      refresh();
    }, 300);
  });
  useEffect(() => () => clearTimeout(timer.current), []);
}
