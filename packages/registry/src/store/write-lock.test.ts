import { Worker } from "node:worker_threads";
import { describe, expect, it, vi } from "vitest";
import { WriteLock } from "./write-lock.js";

/**
 * A worker thread that takes the lock `rounds` times through its own WriteLock on the same memory (plain JavaScript:
 * the class's logic, written out), marking `inside` while it holds it and counting a round that finds it marked.
 */
const WORKER = `
const { workerData, parentPort, threadId } = require("node:worker_threads");
const cell = new Int32Array(workerData.lock, 0, 1);
const self = threadId + 1;
const shared = new Int32Array(workerData.shared);
for (let i = 0; i < workerData.rounds; i++) {
  for (let held; (held = Atomics.compareExchange(cell, 0, 0, self)) !== 0; ) Atomics.wait(cell, 0, held);
  if (Atomics.exchange(shared, 0, 1) !== 0) Atomics.add(shared, 1, 1);
  const until = Date.now() + workerData.holdMs;
  while (Date.now() < until);
  Atomics.store(shared, 0, 0);
  if (workerData.keep) break; // ends holding it
  Atomics.store(cell, 0, 0);
  Atomics.notify(cell, 0, 1);
}
parentPort.postMessage("done");
`;

function worker(lock: WriteLock, shared: SharedArrayBuffer, rounds: number, holdMs: number, keep = false) {
  const w = new Worker(WORKER, { eval: true, workerData: { lock: lock.buffer, shared, rounds, holdMs, keep } });
  return Object.assign(
    new Promise<void>((resolve, reject) => {
      w.once("exit", () => resolve());
      w.once("error", reject);
    }),
    { threadId: w.threadId },
  );
}

describe("WriteLock", () => {
  it("is held by one thread at a time, the main thread awaiting its turn", async () => {
    const lock = new WriteLock();
    const shared = new SharedArrayBuffer(8);
    const flags = new Int32Array(shared); // [someone inside, rounds that found someone inside]
    let done = false;
    const other = worker(lock, shared, 100, 1).then(() => (done = true));
    let rounds = 0;
    // Until the worker is through its rounds (it starts some milliseconds after this loop).
    while (!done) {
      await lock.with(async () => {
        if (Atomics.exchange(flags, 0, 1) !== 0) Atomics.add(flags, 1, 1);
        await new Promise((r) => setImmediate(r));
        Atomics.store(flags, 0, 0);
      });
      rounds++;
    }
    await other;
    expect(rounds).toBeGreaterThan(10);
    expect(Atomics.load(flags, 1)).toBe(0);
  });

  it("keeps the event loop turning while the main thread waits for another thread's hold", async () => {
    const lock = new WriteLock();
    const shared = new SharedArrayBuffer(8);
    const other = worker(lock, shared, 1, 300);
    // Until the worker holds it: its hold then lasts 300 ms.
    await vi.waitFor(() => expect(Atomics.load(new Int32Array(shared), 0)).not.toBe(0), { interval: 1 });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const waited = performance.now();
    await lock.acquire();
    const ms = performance.now() - waited;
    lock.release();
    clearInterval(timer);
    await other;
    expect(ms).toBeGreaterThan(100);
    expect(ticks).toBeGreaterThan(5);
  });

  it("is let go of when the thread that held it has ended, and only then", async () => {
    const lock = new WriteLock();
    const gone = worker(lock, new SharedArrayBuffer(8), 1, 0, true);
    await gone;
    expect(lock.releaseIfHeldBy(gone.threadId + 1)).toBe(false); // another thread's id
    expect(lock.releaseIfHeldBy(gone.threadId)).toBe(true);
    await lock.acquire();
    expect(lock.releaseIfHeldBy(gone.threadId)).toBe(false); // this thread holds it now
    lock.release();
  });
});
