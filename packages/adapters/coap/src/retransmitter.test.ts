import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Retransmitter, type Settlement } from "./retransmitter.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** Starts one message; answers when it was transmitted (ms since start) and how it settled. */
function run(r: Retransmitter, key = "p:1") {
  const sent: number[] = [];
  const settled: Settlement[] = [];
  const start = Date.now();
  r.start(
    key,
    Buffer.from("m"),
    () => sent.push(Date.now() - start),
    (s) => settled.push(s),
  );
  return { sent, settled };
}

describe("retransmitter (RFC 7252 §4.2)", () => {
  it("retransmits MAX_RETRANSMIT times with doubling timeouts, then times out after the last one's timeout", async () => {
    const r = new Retransmitter({ ackTimeoutMs: 2000, ackRandomFactor: 1, maxRetransmit: 4 });
    const { sent, settled } = run(r);
    await vi.advanceTimersByTimeAsync(61_999);
    expect(sent).toEqual([0, 2000, 6000, 14_000, 30_000]);
    expect(settled).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toEqual([{ kind: "timeout" }]);
    expect(r.size).toBe(0);
  });

  it("draws the first timeout between ACK_TIMEOUT and ACK_TIMEOUT × ACK_RANDOM_FACTOR", async () => {
    const r = new Retransmitter({ ackTimeoutMs: 1000, ackRandomFactor: 1.5, maxRetransmit: 1 });
    vi.spyOn(Math, "random").mockReturnValueOnce(0.999).mockReturnValueOnce(0);
    const slow = run(r, "a");
    const fast = run(r, "b");
    await vi.advanceTimersByTimeAsync(1000);
    expect([slow.sent, fast.sent]).toEqual([[0], [0, 1000]]);
    await vi.advanceTimersByTimeAsync(499);
    expect(slow.sent).toEqual([0, 1499]);
    vi.restoreAllMocks();
  });

  it("stops at an ACK or RST of its key, settling it once, and ignores answers to other keys", async () => {
    const r = new Retransmitter({ ackTimeoutMs: 100, ackRandomFactor: 1, maxRetransmit: 4 });
    const acked = run(r, "p:1");
    const reset = run(r, "p:2");
    expect(r.settle("q:1", { kind: "ack" })).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    expect(r.settle("p:1", { kind: "ack" })).toBe(true);
    expect(r.settle("p:2", { kind: "reset" })).toBe(true);
    expect(r.settle("p:1", { kind: "ack" })).toBe(false);
    await vi.advanceTimersByTimeAsync(10_000);
    expect([acked.sent, acked.settled]).toEqual([[0, 100], [{ kind: "ack" }]]);
    expect(reset.settled).toEqual([{ kind: "reset" }]);
  });

  it("stops without settling when told to, and clear stops everything left as timed out", async () => {
    const r = new Retransmitter({ ackTimeoutMs: 100, ackRandomFactor: 1, maxRetransmit: 4 });
    const stopped = run(r, "a");
    const cleared = run(r, "b");
    r.stop("a");
    r.clear();
    await vi.advanceTimersByTimeAsync(10_000);
    expect([stopped.sent, stopped.settled, cleared.sent]).toEqual([[0], [], [0]]);
    expect(cleared.settled).toEqual([{ kind: "timeout" }]);
  });
});
