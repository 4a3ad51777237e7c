import { quietFor } from "@iot/config/testing";
import { describe, expect, it, vi } from "vitest";
import { CallBatcher } from "./call-batcher.js";

/** A batch call that answers when told to, recording each batch it was given. */
function gatedCall() {
  const batches: string[][] = [];
  const gates: (() => void)[] = [];
  const call = (requests: string[]) => {
    batches.push(requests);
    return new Promise<string[]>((resolve) => gates.push(() => resolve(requests.map((r) => r.toUpperCase()))));
  };
  return { call, batches, open: (i: number) => gates[i]!() };
}

const turn = () => new Promise((r) => setImmediate(r));

describe("CallBatcher", () => {
  it("sends the requests of one turn of the event loop together and answers each its own response", async () => {
    const g = gatedCall();
    const batcher = new CallBatcher(g.call, 2, 10);
    const answers = ["a", "b", "c"].map((r) => batcher.run(r));
    await turn();
    expect(g.batches).toEqual([["a", "b", "c"]]);
    g.open(0);
    expect(await Promise.all(answers)).toEqual(["A", "B", "C"]);
  });

  it("keeps at most `maxCalls` calls in flight; what arrives meanwhile leaves in arrival order in the next call", async () => {
    const g = gatedCall();
    const batcher = new CallBatcher(g.call, 1, 2);
    const first = batcher.run("a");
    await turn();
    const later = ["b", "c", "d"].map((r) => batcher.run(r));
    await turn();
    expect(g.batches).toEqual([["a"]]);
    expect(batcher.waiting).toBe(3);
    g.open(0);
    expect(await first).toBe("A");
    await turn();
    expect(g.batches).toEqual([["a"], ["b", "c"]]);
    g.open(1);
    expect(await later[1]).toBe("C");
    await turn();
    expect(g.batches).toEqual([["a"], ["b", "c"], ["d"]]);
    g.open(2);
    expect(await Promise.all(later)).toEqual(["B", "C", "D"]);
  });

  it("while a call is in flight, gathers `busyBatch` requests arriving one per turn before the next call", async () => {
    const g = gatedCall();
    const batcher = new CallBatcher(g.call, 4, 10, 3);
    const first = batcher.run("a");
    await turn();
    const later: Promise<string>[] = [];
    for (const r of ["b", "c", "d", "e"]) {
      later.push(batcher.run(r));
      await turn();
    }
    // Not one call per free slot: "b" and "c" waited until "d" made three.
    expect(g.batches).toEqual([["a"], ["b", "c", "d"]]);
    expect(batcher.waiting).toBe(1);
    g.open(0);
    g.open(1);
    expect(await first).toBe("A");
    // Once no call is in flight, whatever waits goes at once, however few.
    await turn();
    expect(g.batches).toEqual([["a"], ["b", "c", "d"], ["e"]]);
    g.open(2);
    expect(await Promise.all(later)).toEqual(["B", "C", "D", "E"]);
  });

  it("with `minGapMs`, sends after a quiet spell at once but gathers what arrives soon after the last call", async () => {
    const g = gatedCall();
    const batcher = new CallBatcher(g.call, 4, 10, 5, 40);
    const first = batcher.run("a");
    await turn();
    expect(g.batches).toEqual([["a"]]);
    g.open(0);
    expect(await first).toBe("A");
    // No call in flight, but the last left less than 40 ms ago: these wait for the gap to end, together.
    const sentAt = performance.now();
    const soon = [batcher.run("b"), batcher.run("c")];
    await turn();
    await turn();
    expect(g.batches).toEqual([["a"]]);
    await vi.waitFor(() => expect(g.batches).toEqual([["a"], ["b", "c"]]));
    g.open(1);
    expect(await Promise.all(soon)).toEqual(["B", "C"]);
    expect(performance.now() - sentAt).toBeGreaterThanOrEqual(30);
    // After the gap, a lone request goes at the end of its turn.
    await quietFor(50, "past the 40 ms gap after the last call");
    const late = batcher.run("d");
    await turn();
    expect(g.batches).toEqual([["a"], ["b", "c"], ["d"]]);
    g.open(2);
    expect(await late).toBe("D");
    // `busyBatch` waiting requests do not wait for the gap.
    const many = ["e", "f", "g", "h", "i"].map((r) => batcher.run(r));
    await turn();
    expect(g.batches).toEqual([["a"], ["b", "c"], ["d"], ["e", "f", "g", "h", "i"]]);
    g.open(3);
    expect(await Promise.all(many)).toEqual(["E", "F", "G", "H", "I"]);
  });

  it("drops a waiting request whose signal aborted before its call, without sending it", async () => {
    const g = gatedCall();
    const batcher = new CallBatcher(g.call, 1, 10);
    const running = batcher.run("first");
    await turn();
    const gaveUp = new AbortController();
    const dropped = batcher.run("second", gaveUp.signal);
    const kept = batcher.run("third");
    gaveUp.abort();
    g.open(0);
    await expect(dropped).rejects.toMatchObject({ code: "ABORTED" });
    await running;
    await turn();
    expect(g.batches).toEqual([["first"], ["third"]]);
    g.open(1);
    expect(await kept).toBe("THIRD");
    await expect(batcher.run("late", gaveUp.signal)).rejects.toMatchObject({ code: "ABORTED" });
  });

  it("rejects every request of a failed call and goes on with the next", async () => {
    let fail = true;
    const batcher = new CallBatcher(
      (rs: string[]) => (fail ? Promise.reject(new Error("registry away")) : Promise.resolve(rs)),
      1,
      10,
    );
    const failed = [batcher.run("a"), batcher.run("b")];
    await expect(Promise.all(failed)).rejects.toThrow("registry away");
    await expect(failed[1]).rejects.toThrow("registry away");
    fail = false;
    expect(await batcher.run("c")).toBe("c");
  });
});
