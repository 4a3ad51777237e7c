/**
 * Calls made on a long-lived stream and answered on it by id (the registry's AuthenticateCall): each waits for its
 * answer until its deadline, and those still waiting fail together when the stream ends, since their answers can no
 * longer come.
 */
export class StreamAnswers<T> {
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve(value: T): void; reject(err: Error): void; timer: NodeJS.Timeout }
  >();

  /** `timeoutMs`: how long a call waits for its answer before it fails. */
  constructor(private readonly timeoutMs: number) {}

  /** Calls waiting for their answers. */
  get size(): number {
    return this.waiting.size;
  }

  /** A new call: its id, to send, and its answer (rejected after the deadline or when the stream ends). */
  open(): { id: number; answer: Promise<T> } {
    const id = this.nextId++;
    const answer = new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(id, new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
    });
    return { id, answer };
  }

  /** The answer of call `id` came; one for a call no longer waiting (past its deadline) is dropped. */
  settle(id: number, value: T): void {
    this.take(id)?.resolve(value);
  }

  /** Call `id` gets no answer. */
  fail(id: number, err: Error): void {
    this.take(id)?.reject(err);
  }

  /** Call `id` stops waiting (its deadline cleared), if it still was. */
  private take(id: number) {
    const w = this.waiting.get(id);
    if (!w) return undefined;
    this.waiting.delete(id);
    clearTimeout(w.timer);
    return w;
  }

  /** The stream ended: no call still waiting gets its answer. */
  failAll(err: Error): void {
    for (const id of [...this.waiting.keys()]) this.fail(id, err);
  }
}
