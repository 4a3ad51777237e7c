import { describe, expect, it } from "vitest";
import { RegistryEndpoints } from "./registry-endpoints.js";

/** Each failure as [address tried next, wait before it]. */
const failures = (e: RegistryEndpoints, n: number) =>
  Array.from({ length: n }, () => {
    const wait = e.failed();
    return [e.current, wait] as const;
  });

describe("RegistryEndpoints", () => {
  it("starts on the first address", () => {
    expect(new RegistryEndpoints(["a:1", "b:2"]).current).toBe("a:1");
  });

  it("moves to the next node after one short step, and backs off only after a whole round failed", () => {
    const e = new RegistryEndpoints(["a:1", "b:2", "c:3"], { random: () => 1 });
    expect(failures(e, 7)).toEqual([
      ["b:2", 100],
      ["c:3", 100],
      ["a:1", 100],
      ["b:2", 100],
      ["c:3", 100],
      ["a:1", 200],
      ["b:2", 100],
    ]);
  });

  it("stays on the node that answered and starts the count afresh", () => {
    const e = new RegistryEndpoints(["a:1", "b:2"], { random: () => 1 });
    failures(e, 4);
    expect(e.current).toBe("a:1");
    e.failed();
    e.connected();
    expect(e.current).toBe("b:2");
    expect(failures(e, 2)).toEqual([
      ["a:1", 100],
      ["b:2", 100],
    ]);
  });

  it("behaves as the plain backoff with one address", () => {
    const e = new RegistryEndpoints(["a:1"], { random: () => 1, maxMs: 800 });
    expect(failures(e, 5)).toEqual([
      ["a:1", 100],
      ["a:1", 200],
      ["a:1", 400],
      ["a:1", 800],
      ["a:1", 800],
    ]);
  });

  it("keeps the switch step between half and all of the first backoff step", () => {
    const e = new RegistryEndpoints(["a:1", "b:2"], { random: () => 0, initialMs: 40 });
    expect(e.failed()).toBe(20);
  });

  it("refuses an empty address list", () => {
    expect(() => new RegistryEndpoints([])).toThrow(/at least one registry address/);
  });
});
