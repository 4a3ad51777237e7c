import { AdapterError } from "./errors.js";
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
 * Group commit for request/response calls: requests wait in arrival order, and whenever fewer than `maxCalls` calls
 * are in flight, everything waiting (up to `maxBatch`) leaves together as one call. A lone request goes out at the
 * end of the current turn of the event loop; under a burst (thousands of devices connecting at once) the requests
 * that arrive while calls run share the next one, so the cost per call (an HTTP/2 stream, its headers, the token
 * check) is paid once per batch, and the burst is paced instead of piling up on the registry. A waiting request
 * whose `signal` has aborted by then (its device hung up) is dropped without being sent.
 */
export class CallBatcher<Req, Res> {
  private readonly queue: Waiting<Req, Res>[] = [];
  private inFlight = 0;
  private scheduled: NodeJS.Immediate | undefined;

  constructor(
    private readonly call: BatchCall<Req, Res>,
    private readonly maxCalls: number,
    private readonly maxBatch: number,
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
      if (this.inFlight < this.maxCalls) this.scheduled ??= setImmediate(() => this.send());
    });
  }

  private send(): void {
    this.scheduled = undefined;
    while (this.inFlight < this.maxCalls && this.queue.length > 0) {
      const batch: Waiting<Req, Res>[] = [];
      while (batch.length < this.maxBatch && this.queue.length > 0) {
        const w = this.queue.shift()!;
        if (w.signal?.aborted) w.reject(aborted());
        else batch.push(w);
      }
      if (batch.length === 0) return;
      this.inFlight++;
      this.call(batch.map((w) => w.request)).then(
        (responses) => this.settle(batch, (w, i) => w.resolve(responses[i]!)),
        (err: unknown) => this.settle(batch, (w) => w.reject(err as Error)),
      );
    }
  }

  private settle(batch: Waiting<Req, Res>[], each: (w: Waiting<Req, Res>, i: number) => void): void {
    // The slot is free again before the callers hear their answers.
    this.inFlight--;
    if (this.queue.length > 0) this.scheduled ??= setImmediate(() => this.send());
    batch.forEach(each);
  }
}

function aborted(): AdapterError {
  return new AdapterError("ABORTED", "the request was given up before it ran");
}
