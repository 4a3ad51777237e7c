import net from "node:net";
import tls from "node:tls";
import type { LookupFunction } from "node:net";
import { ResponseReader, type ResponseHead } from "./http-response-reader.js";

/** What one request ended with: the status of the answer, or why there was none. */
export type PipelineResult = { status: number; error?: undefined } | { status?: undefined; error: string };

/** Tuning of one origin's connections. */
export interface PipelineOptions {
  /** Most connections open to the origin at once. */
  maxConnections: number;
  /** Most requests written on one connection and not answered yet (1 = no pipelining). */
  depth: number;
  /** A connection idle this long (ms) is closed. */
  idleMs: number;
  /**
   * How long (ms) a request may wait for others to share its write while answers are still awaited on its
   * connection (unless `depth` requests are waiting already): answers trickle in one by one from a busy receiver,
   * and each would otherwise send its lane's next request in a write (a system call, and a wake-up of the receiver)
   * of its own. With no answer awaited, requests go out at the end of the current turn of the event loop.
   */
  gatherMs: number;
  /** Resolves host names (a check of the addresses it answers goes here); the system's by default. */
  lookup?: LookupFunction | undefined;
}

/** Defaults: 8 connections, 16 requests in flight on each, writes gathered for 2 ms, idle ones closed after 30 s. */
export const DEFAULT_PIPELINE_OPTIONS: PipelineOptions = { maxConnections: 8, depth: 16, idleMs: 30_000, gatherMs: 2 };

interface Request {
  /** The whole request: head and body. */
  bytes: string;
  timeoutMs: number;
  /** When it was written (performance.now()); its answer is due by then + timeoutMs. */
  writtenAt: number;
  /** Already written once on a connection that closed before answering it. */
  resent: boolean;
  done(r: PipelineResult): void;
}

/**
 * HTTP/1.1 POSTs to one origin over a few kept-alive connections, pipelined: the requests queued in one turn of the
 * event loop go out in ONE write per connection, and the answers come back in order. A webhook delivery costs a
 * system call or two less this way than with one request per write (node:http): on a busy node that is most of its
 * cost. A connection that closes with requests unanswered sends them again on another one once (a server closing an
 * idle kept-alive connection as we write is not an error); a server that answers `connection: close` is not
 * pipelined to any more. Requests are only ever POSTs whose receivers de-duplicate by delivery id, so sending one
 * twice is safe.
 */
export class OriginPipeline {
  readonly #connections = new Set<Connection>();
  readonly #waiting: Request[] = [];
  readonly #options: PipelineOptions;
  #depth: number;

  constructor(
    readonly origin: URL,
    options: Partial<PipelineOptions> = {},
  ) {
    this.#options = { ...DEFAULT_PIPELINE_OPTIONS, ...options };
    this.#depth = Math.max(1, this.#options.depth);
  }

  /** POSTs `body` (UTF-8) to `path` with `headers` (lower-case names); never rejects. */
  post(path: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PipelineResult> {
    let head = `POST ${path} HTTP/1.1\r\nhost: ${this.origin.host}\r\n`;
    for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
    head += `content-length: ${Buffer.byteLength(body)}\r\n\r\n`;
    return new Promise((done) => {
      this.#dispatch({ bytes: head + body, timeoutMs, writtenAt: 0, resent: false, done });
    });
  }

  /** Closes every connection; requests not answered yet end with an error. */
  close(): void {
    for (const r of this.#waiting.splice(0)) r.done({ error: "closed" });
    for (const c of this.#connections) c.destroy("closed", false);
  }

  #dispatch(r: Request): void {
    let best: Connection | undefined;
    for (const c of this.#connections)
      if (c.usable && c.outstanding < this.#depth && (best === undefined || c.outstanding < best.outstanding)) best = c;
    if (best === undefined && this.#connections.size < this.#options.maxConnections) best = this.#open();
    if (best === undefined) this.#waiting.push(r);
    else best.enqueue(r);
  }

  #open(): Connection {
    const c = new Connection(this.origin, this.#options, () => this.#depth, {
      answered: (keepAlive) => {
        if (!keepAlive) this.#depth = 1;
        const next = this.#waiting.shift();
        if (next !== undefined) this.#dispatch(next);
      },
      closed: (requeue) => {
        this.#connections.delete(c);
        for (const r of requeue) this.#dispatch(r);
        // Waiting requests need a connection: open one if there is none left.
        const next = this.#waiting.shift();
        if (next !== undefined) this.#dispatch(next);
      },
    });
    this.#connections.add(c);
    return c;
  }
}

interface ConnectionEvents {
  /** An answer came; `keepAlive` false when the server will close the connection after it. */
  answered(keepAlive: boolean): void;
  /** The connection is gone; `requeue` are requests it took but may send again elsewhere. */
  closed(requeue: Request[]): void;
}

/** One connection of an OriginPipeline. */
class Connection {
  readonly #socket: net.Socket;
  readonly #events: ConnectionEvents;
  readonly #idleMs: number;
  readonly #gatherMs: number;
  readonly #depth: () => number;
  /** Taken, not written yet (written together on the next turn of the event loop). */
  #unwritten: Request[] = [];
  /** Written, not answered, in order. */
  readonly #inFlight: Request[] = [];
  readonly #reader = new ResponseReader();
  #lastActive = performance.now();
  #flushTimer: NodeJS.Timeout | undefined;
  #flushSoon: NodeJS.Immediate | undefined;
  #connected = false;
  #closing = false;
  #gone = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(origin: URL, options: PipelineOptions, depth: () => number, events: ConnectionEvents) {
    this.#events = events;
    this.#idleMs = options.idleMs;
    this.#gatherMs = options.gatherMs;
    this.#depth = depth;
    const host = origin.hostname.replace(/^\[(.*)\]$/, "$1");
    const secure = origin.protocol === "https:";
    const port = Number(origin.port) || (secure ? 443 : 80);
    const common = { host, port, ...(options.lookup ? { lookup: options.lookup } : {}) };
    this.#socket = secure
      ? tls.connect({ ...common, ALPNProtocols: ["http/1.1"], ...(net.isIP(host) ? {} : { servername: host }) })
      : net.connect(common);
    this.#socket.setNoDelay(true);
    this.#socket.once(secure ? "secureConnect" : "connect", () => {
      this.#connected = true;
      this.#flush();
    });
    this.#socket.on("data", (chunk: Buffer) => this.#read(chunk));
    // A server may close a kept-alive connection just as requests go out on it: they are sent again (once).
    this.#socket.on("error", (err) => this.destroy(err.message.slice(0, 300), false));
    this.#socket.on("close", () => this.destroy("connection closed before the answer", false));
    this.#socket.on("end", () => {
      const head = this.#reader.end();
      if (head !== undefined) this.#answer(head);
    });
  }

  /** Requests taken and not answered. */
  get outstanding(): number {
    return this.#unwritten.length + this.#inFlight.length;
  }

  /** Takes more requests: not closing and not gone. */
  get usable(): boolean {
    return !this.#closing && !this.#gone;
  }

  enqueue(r: Request): void {
    this.#unwritten.push(r);
    if (!this.#connected) return;
    // A whole pipeline's worth is waiting: no reason to wait for more.
    if (this.#unwritten.length >= this.#depth()) this.#flush();
    // Answers still to come would bring more requests (their lanes' next): wait a little for them.
    else if (this.#inFlight.length > 0) this.#flushTimer ??= setTimeout(() => this.#flush(), this.#gatherMs);
    else this.#flushSoon ??= setImmediate(() => this.#flush());
  }

  /**
   * Ends the connection. `error` goes to the first unanswered request if `blameFirst` (its answer was bad or late);
   * the others are requeued once.
   */
  destroy(error: string, blameFirst: boolean): void {
    if (this.#gone) return;
    this.#gone = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#flushTimer);
    clearImmediate(this.#flushSoon);
    this.#socket.destroy();
    const requeue: Request[] = [];
    if (!this.#connected) {
      // Nothing was written: the connection itself failed, so does everything it took.
      for (const r of [...this.#inFlight, ...this.#unwritten]) r.done({ error });
    } else {
      this.#inFlight.forEach((r, i) => {
        if ((i === 0 && blameFirst) || r.resent) r.done({ error });
        else requeue.push({ ...r, resent: true });
      });
      requeue.push(...this.#unwritten);
    }
    this.#inFlight.length = 0;
    this.#unwritten = [];
    this.#events.closed(requeue);
  }

  #flush(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    clearImmediate(this.#flushSoon);
    this.#flushSoon = undefined;
    if (this.#gone || this.#closing || this.#unwritten.length === 0) return;
    const now = performance.now();
    let bytes = "";
    for (const r of this.#unwritten) {
      r.writtenAt = now;
      bytes += r.bytes;
      this.#inFlight.push(r);
    }
    this.#unwritten = [];
    this.#socket.ref();
    this.#socket.write(bytes);
    this.#arm();
  }

  /** Keeps one timer: at the oldest unanswered request's deadline, or the idle limit when none is. */
  #arm(): void {
    if (this.#timer !== undefined) return;
    const first = this.#inFlight[0];
    const now = performance.now();
    const wait = first === undefined ? this.#lastActive + this.#idleMs - now : first.writtenAt + first.timeoutMs - now;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        const head = this.#inFlight[0];
        if (head === undefined) {
          const idle = this.outstanding === 0 && performance.now() >= this.#lastActive + this.#idleMs;
          if (idle) this.destroy("idle", false);
          else this.#arm();
        } else if (performance.now() >= head.writtenAt + head.timeoutMs) {
          this.destroy(`no answer within ${head.timeoutMs} ms`, true);
        } else this.#arm();
      },
      Math.max(0, wait),
    );
    this.#timer.unref();
  }

  #read(chunk: Buffer): void {
    let heads: ResponseHead[];
    try {
      heads = this.#reader.push(chunk);
    } catch (err) {
      return this.destroy((err as Error).message, true);
    }
    for (const head of heads) if (!this.#gone) this.#answer(head);
  }

  #answer(head: ResponseHead): void {
    const r = this.#inFlight.shift();
    if (r === undefined) return this.destroy("answer without a request", false);
    if (!head.keepAlive) this.#closing = true;
    this.#lastActive = performance.now();
    // Like node:http's agent: an idle kept-alive connection does not keep the process alive.
    if (this.outstanding === 0) this.#socket.unref();
    r.done({ status: head.status });
    this.#events.answered(head.keepAlive);
    if (this.#closing && this.#inFlight.length === 0) this.destroy("closed by the server", false);
    // The last answer awaited: what it brings (its lane's next request, queued in this turn) need not wait longer.
    else if (this.#inFlight.length === 0 && this.#flushTimer !== undefined) {
      clearTimeout(this.#flushTimer);
      this.#flushTimer = undefined;
      this.#flushSoon ??= setImmediate(() => this.#flush());
    }
  }
}
