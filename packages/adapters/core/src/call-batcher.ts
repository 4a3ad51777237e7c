import { AdapterError } from "./errors.js";
import { Fifo } from "./fifo.js";
import type { GiveUpSignal } from "./registry-client.js";

interface Waiting<Req, Res> {
  readonly request: Req;
  readonly signal: GiveUpSignal | undefined;
  readonly resolve: (response: Res) => void;
  readonly reject: (err: Error) => void;
}

/** Sends several requests in one call and answers one response per request, in request order. */
export type BatchCall<Req, Res> = (requests: Req[]) => Promise<Res[]>;

/**
 * Group commit for request/response calls: requests wait in arrival order, and everything waiting (up to `maxBatch`)
 * leaves together as one call when none is in flight, or when `busyBatch` requests wait and fewer than `maxCalls`
 * calls are in flight. A lone request goes out at the end of the current turn of the event loop; under a burst
 * (thousands of devices connecting at once) the requests that arrive while calls run share the next one, so the cost
 * per call (an HTTP/2 stream, its headers, the registry's lookups for the batch) is paid once per batch, and the
 * burst is paced instead of piling up on the registry. Without `busyBatch`, devices that arrive one per turn of the
 * event loop took each free slot alone: in a connect storm three of every four AuthenticateBatch calls carried one
 * device. With `minGapMs`, a call that leaves because none is in flight leaves no sooner than that after the last
 * one: after a quiet spell a request still goes at once, but when answers come back within a millisecond or two
 * (a fast registry in a storm) calls no longer carry one or two requests each. A waiting request whose `signal` has
 * aborted by then (its device hung up) is dropped without being sent.
 */
export class CallBatcher<Req, Res> {
  private readonly queue = new Fifo<Waiting<Req, Res>>();
  private inFlight = 0;
  private scheduled: NodeJS.Immediate | undefined;
  private gapTimer: NodeJS.Timeout | undefined;
  /** When the last call left (performance.now()). */
  private lastSent = -Infinity;

  constructor(
    private readonly call: BatchCall<Req, Res>,
    private readonly maxCalls: number,
    private readonly maxBatch: number,
    private readonly busyBatch = 1,
    private readonly minGapMs = 0,
  ) {}

  /** Requests waiting for a call. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Answers `request` from the next call it fits in; rejects with AdapterError ABORTED if `signal` aborted first. */
  run(request: Req, signal?: GiveUpSignal): Promise<Res> {
    if (signal?.aborted) return Promise.reject(aborted());
    return new Promise<Res>((resolve, reject) => {
      this.queue.push({ request, signal, resolve, reject });
      this.kick();
    });
  }

  /** Whether what waits may leave now (see the class). */
  private ready(): boolean {
    const waiting = this.queue.length;
    return (
      waiting > 0 &&
      ((this.inFlight === 0 && performance.now() - this.lastSent >= this.minGapMs) ||
        (this.inFlight < this.maxCalls && waiting >= this.busyBatch))
    );
  }

  /** Sends what waits at the end of this turn when it may leave, else when the gap since the last call ends. */
  private kick(): void {
    if (this.ready()) {
      clearTimeout(this.gapTimer);
      this.gapTimer = undefined;
      this.scheduled ??= setImmediate(() => this.send());
    } else if (this.inFlight === 0 && this.queue.length > 0 && !this.gapTimer && !this.scheduled) {
      this.gapTimer = setTimeout(
        () => {
          // The gap is over (a timer may fire a fraction of a millisecond before performance.now() says so).
          this.lastSent = -Infinity;
          this.send();
        },
        this.lastSent + this.minGapMs - performance.now(),
      );
    }
  }

  private send(): void {
    this.scheduled = undefined;
    clearTimeout(this.gapTimer);
    this.gapTimer = undefined;
    while (this.ready()) {
      const batch: Waiting<Req, Res>[] = [];
      while (batch.length < this.maxBatch && this.queue.length > 0) {
        const w = this.queue.shift()!;
        if (w.signal?.aborted) w.reject(aborted());
        else batch.push(w);
      }
      if (batch.length === 0) return;
      this.inFlight++;
      this.lastSent = performance.now();
      this.call(batch.map((w) => w.request)).then(
        (responses) => this.settle(batch, (w, i) => w.resolve(responses[i]!)),
        (err: unknown) => this.settle(batch, (w) => w.reject(err as Error)),
      );
    }
  }

  private settle(batch: Waiting<Req, Res>[], each: (w: Waiting<Req, Res>, i: number) => void): void {
    // The slot is free again before the callers hear their answers.
    this.inFlight--;
    this.kick();
    batch.forEach(each);
  }
}

function aborted(): AdapterError {
  return new AdapterError("ABORTED", "the request was given up before it ran");
}
