import { describe, expect, it } from "vitest";
import { blockSize, decodeBlock, encodeBlock, fitBlock, sliceBlock } from "./block-option.js";

describe("block option", () => {
  it("reads NUM, M and SZX from 0 to 3 bytes as RFC 7959 §2.2 lays them out", () => {
    expect(decodeBlock(Buffer.alloc(0))).toEqual({ num: 0, more: false, szx: 0 });
    expect(decodeBlock(Buffer.from([0x0c]))).toEqual({ num: 0, more: true, szx: 4 });
    expect(decodeBlock(Buffer.from([0xb4]))).toEqual({ num: 11, more: false, szx: 4 });
    expect(decodeBlock(Buffer.from([0x12, 0x3e]))).toEqual({ num: 0x123, more: true, szx: 6 });
    expect(decodeBlock(Buffer.from([0xff, 0xff, 0xf6]))).toEqual({ num: 0xfffff, more: false, szx: 6 });
  });

  it("refuses a value longer than 3 bytes and the reserved SZX 7", () => {
    expect(decodeBlock(Buffer.from([0, 0, 0, 0x0c]))).toBe("malformed");
    expect(decodeBlock(Buffer.from([0x0f]))).toBe("reserved-szx");
  });

  it("encodes what it decodes, in the fewest bytes", () => {
    for (const block of [
      { num: 0, more: false, szx: 0 },
      { num: 1, more: true, szx: 4 },
      { num: 4095, more: false, szx: 6 },
      { num: 0xfffff, more: true, szx: 2 },
    ]) {
      expect(decodeBlock(encodeBlock(block))).toEqual(block);
    }
    expect(encodeBlock({ num: 0, more: false, szx: 0 }).length).toBe(0);
    expect(encodeBlock({ num: 15, more: true, szx: 6 }).length).toBe(1);
    expect(encodeBlock({ num: 16, more: true, szx: 6 }).length).toBe(2);
  });

  it("sizes blocks from 16 to 1024 bytes", () => {
    expect([0, 4, 6].map(blockSize)).toEqual([16, 256, 1024]);
  });

  it("scales a block asked in a larger size to the same byte offset in a smaller one", () => {
    expect(fitBlock({ num: 1, more: false, szx: 6 }, 4)).toEqual({ num: 4, more: false, szx: 4 });
    expect(fitBlock({ num: 3, more: false, szx: 2 }, 4)).toEqual({ num: 3, more: false, szx: 2 });
  });

  it("cuts a body into blocks, M set on all but the last, nothing past the end", () => {
    const body = Buffer.from("a".repeat(32) + "b".repeat(32) + "c".repeat(5));
    expect(sliceBlock(body, 0, 1)).toEqual({
      payload: Buffer.from("a".repeat(32)),
      block: { num: 0, more: true, szx: 1 },
    });
    expect(sliceBlock(body, 2, 1)).toEqual({ payload: Buffer.from("ccccc"), block: { num: 2, more: false, szx: 1 } });
    expect(sliceBlock(body, 3, 1)).toBeUndefined();
    expect(sliceBlock(Buffer.alloc(64), 1, 1)?.block).toEqual({ num: 1, more: false, szx: 1 });
    expect(sliceBlock(Buffer.alloc(0), 0, 6)).toEqual({
      payload: Buffer.alloc(0),
      block: { num: 0, more: false, szx: 6 },
    });
  });
});
