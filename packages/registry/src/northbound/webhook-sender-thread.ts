import { Worker } from "node:worker_threads";
import type { AttemptResult, Delivery } from "./webhook-sender.js";
import type { SendRequest } from "./webhook-sender-worker.js";

/**
 * sendDelivery in a thread of its own: the HTTP request, its JSON body, HMAC signature and socket writes (about
 * 130 µs of a busy central node's event loop per delivery, most of it the write syscall) leave the loop ingest runs
 * on; the dispatcher keeps order, retries and records as before. Use `send` as the dispatcher's sender. The thread
 * starts with the first delivery.
 */
export class WebhookSenderThread {
  #worker: Worker | undefined;
  readonly #waiting = new Map<number, (r: AttemptResult) => void>();
  #next = 1;

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL("./webhook-sender-worker.mjs", import.meta.url), { execArgv: [] });
    worker.unref();
    worker.on("message", (m: { id: number; result: AttemptResult }) => {
      this.#waiting.get(m.id)?.(m.result);
      this.#waiting.delete(m.id);
    });
    worker.on("error", (err) => this.#failAll(`webhook sender thread failed: ${err.message}`));
    worker.on("exit", () => {
      // A thread that died is started again by the next delivery.
      if (this.#worker === worker) this.#worker = undefined;
      this.#failAll("webhook sender thread stopped");
    });
    this.#worker = worker;
    return worker;
  }

  /** Sends one delivery from the thread; never throws (failures come back as results, as sendDelivery's do). */
  readonly send = (delivery: Delivery, timeoutMs: number, allowPrivate: boolean): Promise<AttemptResult> =>
    new Promise((resolve) => {
      const id = this.#next++;
      this.#waiting.set(id, resolve);
      const request: SendRequest = { id, delivery, timeoutMs, allowPrivate };
      this.#thread().postMessage(request);
    });

  /** Stops the thread; deliveries under way end as failed attempts (their page is sent again later). */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
    this.#failAll("webhook sender thread stopped");
  }

  #failAll(error: string): void {
    for (const resolve of this.#waiting.values()) resolve({ ok: false, httpStatus: null, error });
    this.#waiting.clear();
  }
}
