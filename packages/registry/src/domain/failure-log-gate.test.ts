import { describe, expect, it } from "vitest";
import { FailureLogGate } from "./failure-log-gate.js";

describe("FailureLogGate", () => {
  it("lets an address write its limit per window, then none until the window ends", () => {
    const gate = new FailureLogGate(3, 1000);
    const allowed = [0, 1, 2, 3, 4].map((i) => gate.allow("10.0.0.1", i));
    expect(allowed).toEqual([true, true, true, false, false]);
    expect(gate.allow("10.0.0.2", 5)).toBe(true);
    expect(gate.allow("10.0.0.1", 1000)).toBe(true);
  });

  it("remembers at most its number of addresses, dropping the oldest", () => {
    const gate = new FailureLogGate(1, 1000, 2);
    expect(gate.allow("a", 0)).toBe(true);
    expect(gate.allow("b", 0)).toBe(true);
    expect(gate.allow("c", 0)).toBe(true);
    // "a" was dropped to make room for "c": it starts a new window.
    expect(gate.allow("a", 1)).toBe(true);
    expect(gate.allow("c", 1)).toBe(false);
  });
});
