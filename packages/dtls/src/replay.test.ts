import { describe, expect, test } from "vitest";
import { ReplayWindow } from "./replay.js";

describe("ReplayWindow", () => {
  test("accepts new numbers in any order within 64 and refuses each a second time", () => {
    const w = new ReplayWindow();
    for (const seq of [5, 3, 70, 7, 69]) {
      expect(w.mayAccept(seq)).toBe(true);
      w.mark(seq);
      expect(w.mayAccept(seq)).toBe(false);
    }
    expect(w.mayAccept(6)).toBe(false); // 70 - 6 = 64: left the window
    expect(w.mayAccept(8)).toBe(true);
    expect(w.mayAccept(2 ** 47)).toBe(true);
  });

  test("a jump past the window forgets the bitmap but keeps refusing numbers behind it", () => {
    const w = new ReplayWindow();
    w.mark(0);
    w.mark(1000);
    expect(w.mayAccept(999)).toBe(true);
    expect(w.mayAccept(1000)).toBe(false);
    expect(w.mayAccept(1)).toBe(false);
  });

  test("checking does not mark: a number refused by its MAC stays acceptable", () => {
    const w = new ReplayWindow();
    expect(w.mayAccept(4)).toBe(true);
    expect(w.mayAccept(4)).toBe(true);
  });
});
