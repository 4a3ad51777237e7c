import { AdapterError } from "./errors.js";

interface Queued {
  readonly start: () => void;
}

/**
 * Runs at most `limit` tasks at once and queues the rest in arrival order, so a burst (thousands of devices
 * reconnecting at once) is paced instead of piling up on the registry until calls time out. A queued task whose
 * `signal` aborts (its device hung up) is dropped without running.
 */
export class ConcurrencyLimit {
  private running = 0;
  private readonly queue: Queued[] = [];

  constructor(private readonly limit: number) {}

  /** Tasks waiting for a slot. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Runs `task` when a slot is free; rejects with AdapterError ABORTED if `signal` aborts first. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++;
        // The slot is free again before the caller hears the result.
        const release = () => {
          this.running--;
          this.next();
        };
        task().then(
          (value) => (release(), resolve(value)),
          (err: unknown) => (release(), reject(err as Error)),
        );
      };
      if (signal?.aborted) return reject(new AdapterError("ABORTED", "the request was given up before it ran"));
      if (this.running < this.limit) return start();
      const queued: Queued = { start };
      this.queue.push(queued);
      signal?.addEventListener(
        "abort",
        () => {
          const i = this.queue.indexOf(queued);
          if (i < 0) return;
          this.queue.splice(i, 1);
          reject(new AdapterError("ABORTED", "the request was given up before it ran"));
        },
        { once: true },
      );
    });
  }

  private next(): void {
    // Aborted tasks have left the queue already (see run).
    if (this.running < this.limit) this.queue.shift()?.start();
  }
}
