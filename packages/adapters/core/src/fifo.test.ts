import { describe, expect, it } from "vitest";
import { Fifo } from "./fifo.js";

describe("Fifo", () => {
  it("gives items back oldest first, peeking without taking, and undefined once empty", () => {
    const q = new Fifo<number>();
    expect([q.shift(), q.peek(), q.length]).toEqual([undefined, undefined, 0]);
    q.push(1);
    q.push(2);
    expect([q.peek(), q.length]).toEqual([1, 2]);
    expect([q.shift(), q.shift(), q.shift()]).toEqual([1, 2, undefined]);
    q.push(3);
    expect([q.length, q.peek()]).toEqual([1, 3]);
    q.clear();
    expect(q.length).toBe(0);
  });

  it("keeps order and length through 100,000 items pushed and taken in waves", () => {
    const q = new Fifo<number>();
    const taken: number[] = [];
    let next = 0;
    for (let wave = 0; wave < 10; wave++) {
      for (let i = 0; i < 10_000 + wave; i++) q.push(next++);
      for (let i = 0; i < 9_000; i++) taken.push(q.shift()!);
    }
    while (q.length > 0) taken.push(q.shift()!);
    expect(taken).toEqual(Array.from({ length: next }, (_, i) => i));
  });
});
