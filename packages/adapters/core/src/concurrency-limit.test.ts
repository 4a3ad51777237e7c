import { describe, expect, it } from "vitest";
import { ConcurrencyLimit } from "./concurrency-limit.js";

/** A task that resolves when told to, recording that it started. */
function gate(started: string[], name: string) {
  let open!: () => void;
  const done = new Promise<string>((r) => (open = () => r(name)));
  return { task: () => (started.push(name), done), open };
}

describe("ConcurrencyLimit", () => {
  it("runs at most `limit` tasks at once and starts the waiting ones in arrival order", async () => {
    const limit = new ConcurrencyLimit(2);
    const started: string[] = [];
    const [a, b, c, d] = ["a", "b", "c", "d"].map((n) => gate(started, n));
    const results = [a!, b!, c!, d!].map((g) => limit.run(g.task));
    expect(started).toEqual(["a", "b"]);
    expect(limit.waiting).toBe(2);
    b!.open();
    await results[1];
    expect(started).toEqual(["a", "b", "c"]);
    a!.open();
    c!.open();
    d!.open();
    expect(await Promise.all(results)).toEqual(["a", "b", "c", "d"]);
  });

  it("drops a waiting task whose signal aborts, without running it", async () => {
    const limit = new ConcurrencyLimit(1);
    const started: string[] = [];
    const first = gate(started, "first");
    const second = gate(started, "second");
    const running = limit.run(first.task);
    const gaveUp = new AbortController();
    const dropped = limit.run(second.task, gaveUp.signal);
    gaveUp.abort();
    await expect(dropped).rejects.toMatchObject({ code: "ABORTED" });
    first.open();
    await running;
    expect(started).toEqual(["first"]);
    expect(limit.waiting).toBe(0);
  });
});
