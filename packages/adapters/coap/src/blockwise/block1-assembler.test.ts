import { describe, expect, it } from "vitest";
import { Block1Assembler } from "./block1-assembler.js";

const options = { maxBodyBytes: 1000, maxTransfers: 2, idleTimeoutMs: 1000, maxSzx: 6 };
/** Block `num` of 64 bytes (SZX 2) of a body whose byte i is i % 256. */
const block = (num: number, more = true, length = 64) =>
  [{ num, more, szx: 2 }, Buffer.from(Array.from({ length }, (_, i) => (num * 64 + i) % 256))] as const;

describe("Block1 reassembly", () => {
  it("answers Continue to each block and hands over the whole body with the last one", () => {
    const a = new Block1Assembler(options);
    expect(a.offer("k", ...block(0), 150, 0)).toEqual({ kind: "continue", block: { num: 0, more: true, szx: 2 } });
    expect(a.offer("k", ...block(1), 150, 1)).toMatchObject({ kind: "continue", block: { num: 1 } });
    const done = a.offer("k", ...block(2, false, 22), 150, 2);
    expect(done).toMatchObject({ kind: "complete", block: { num: 2, more: false, szx: 2 } });
    expect(done.kind === "complete" && [...done.body]).toEqual(Array.from({ length: 150 }, (_, i) => i));
    expect(a.size).toBe(0);
  });

  it("takes a single last block 0 as the whole body without keeping anything", () => {
    const a = new Block1Assembler(options);
    expect(a.offer("k", ...block(0, false, 10), undefined, 0)).toMatchObject({ kind: "complete" });
    expect(a.size).toBe(0);
  });

  it("tells the client a smaller preferred block size and follows it when the numbers change with it", () => {
    const a = new Block1Assembler({ ...options, maxSzx: 1 });
    expect(a.offer("k", ...block(0), undefined, 0)).toEqual({
      kind: "continue",
      block: { num: 0, more: true, szx: 1 },
    });
    // The client goes on in 32-byte blocks: byte 64 is block 2 of SZX 1.
    const next = a.offer("k", { num: 2, more: false, szx: 1 }, Buffer.alloc(32, 7), undefined, 1);
    expect(next.kind === "complete" && next.body.length).toBe(96);
  });

  it("answers 4.08 (incomplete) to a block out of order or of an upload it does not hold, and drops the upload", () => {
    const a = new Block1Assembler(options);
    expect(a.offer("k", ...block(1), undefined, 0)).toMatchObject({ kind: "incomplete" });
    a.offer("k", ...block(0), undefined, 0);
    expect(a.offer("k", ...block(2), undefined, 1)).toMatchObject({ kind: "incomplete" });
    expect(a.size).toBe(0);
    expect(a.offer("k", ...block(1), undefined, 2)).toMatchObject({ kind: "incomplete" });
  });

  it("answers a repeated block again without adding it twice", () => {
    const a = new Block1Assembler(options);
    a.offer("k", ...block(0), undefined, 0);
    a.offer("k", ...block(1), undefined, 1);
    expect(a.offer("k", ...block(1), undefined, 2)).toMatchObject({ kind: "continue", block: { num: 1 } });
    const done = a.offer("k", ...block(2, false, 1), undefined, 3);
    expect(done.kind === "complete" && done.body.length).toBe(129);
  });

  it("restarts an upload that begins again with block 0", () => {
    const a = new Block1Assembler(options);
    a.offer("k", ...block(0), undefined, 0);
    a.offer("k", ...block(1), undefined, 1);
    a.offer("k", ...block(0), undefined, 2);
    const done = a.offer("k", ...block(1, false, 3), undefined, 3);
    expect(done.kind === "complete" && done.body.length).toBe(67);
  });

  it("refuses as too large an announced Size1 or an accumulated body over the limit, before buffering it", () => {
    const a = new Block1Assembler(options);
    expect(a.offer("k", ...block(0), 1001, 0)).toEqual({ kind: "too-large", size: 1001 });
    expect(a.size).toBe(0);
    for (let n = 0; n < 15; n++) expect(a.offer("k", ...block(n), undefined, n).kind).toBe("continue");
    expect(a.offer("k", ...block(15), undefined, 15)).toEqual({ kind: "too-large", size: 1024 });
    expect(a.size).toBe(0);
  });

  it("refuses a block with M set whose payload is not its block size", () => {
    const a = new Block1Assembler(options);
    expect(a.offer("k", ...block(0, true, 63), undefined, 0)).toMatchObject({ kind: "invalid" });
  });

  it("keeps uploads apart by key and refuses one more than maxTransfers until one ends", () => {
    const a = new Block1Assembler(options);
    a.offer("a", ...block(0), undefined, 0);
    a.offer("b", ...block(0), undefined, 100);
    expect(a.offer("c", ...block(0), undefined, 200)).toEqual({ kind: "busy", retryAfterMs: 800 });
    expect(a.offer("a", ...block(1, false, 1), undefined, 300)).toMatchObject({ kind: "complete" });
    expect(a.offer("c", ...block(0), undefined, 300)).toMatchObject({ kind: "continue" });
  });

  it("frees an upload whose next block does not come within the idle timeout", () => {
    const a = new Block1Assembler(options);
    a.offer("a", ...block(0), undefined, 0);
    a.offer("b", ...block(0), undefined, 600);
    expect(a.sweep(999)).toBe(0);
    expect(a.sweep(1000)).toBe(1);
    expect(a.size).toBe(1);
    expect(a.offer("a", ...block(1), undefined, 1000)).toMatchObject({ kind: "incomplete" });
    // A later block keeps an upload alive: b's idle time counts from its last block.
    a.offer("b", ...block(1), undefined, 1500);
    expect(a.offer("b", ...block(2, false, 1), undefined, 2400)).toMatchObject({ kind: "complete" });
  });
});
