import { threadId } from "node:worker_threads";

/**
 * SQLite's write lock, taken in turn by the threads of one process before they write. Each thread has its own
 * connection; without this, a thread that finds the database locked waits in SQLite's busy handler, which sleeps on
 * that thread: on the main thread, a sleep of the event loop that every device's acknowledgement shares. With it,
 * the main thread awaits the lock (Atomics.waitAsync) and goes on serving meanwhile. The lock lives in a
 * SharedArrayBuffer handed to each thread; it is not reentrant, and it does not order waiters. It holds its holder's
 * thread id (plus one), so that a thread that ended while holding it can be let go of (releaseIfHeldBy).
 */
export class WriteLock {
  readonly #cell: Int32Array;

  /** @param buffer the lock's memory, shared by every thread that takes it (a new one when omitted). */
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.#cell = new Int32Array(buffer, 0, 1);
  }

  /** Resolves once this thread holds the lock. */
  async acquire(): Promise<void> {
    for (;;) {
      const holder = Atomics.compareExchange(this.#cell, 0, UNLOCKED, SELF);
      if (holder === UNLOCKED) return;
      const wait = waitAsync(this.#cell, 0, holder);
      if (wait.async) await wait.value;
    }
  }

  /** Lets the lock go and wakes one thread waiting for it. */
  release(): void {
    Atomics.store(this.#cell, 0, UNLOCKED);
    Atomics.notify(this.#cell, 0, 1);
  }

  /**
   * Lets the lock go if the thread `threadId` holds it (one that ended holding it: its connection is closed with it,
   * so SQLite has rolled its transaction back); answers whether it did.
   */
  releaseIfHeldBy(threadId: number): boolean {
    if (Atomics.compareExchange(this.#cell, 0, threadId + 1, UNLOCKED) !== threadId + 1) return false;
    Atomics.notify(this.#cell, 0, 1);
    return true;
  }

  /** Runs `work` holding the lock. */
  async with<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }
}

const UNLOCKED = 0;
/** What the lock holds while this thread has it: its thread id plus one (the main thread's is 0). */
const SELF = threadId + 1;

/** Atomics.waitAsync (ES2024, in Node since 16), typed here: the project's lib is ES2023. */
const waitAsync = (a: Int32Array, i: number, v: number) =>
  (
    Atomics as unknown as {
      waitAsync(a: Int32Array, i: number, v: number): { async: false } | { async: true; value: Promise<string> };
    }
  ).waitAsync(a, i, v);
