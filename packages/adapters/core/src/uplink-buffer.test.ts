import { describe, expect, it, vi } from "vitest";
import { AdapterError } from "./errors.js";
import type { Uplink } from "./registry-client.js";
import { UplinkBuffer, uplinkPromise } from "./uplink-buffer.js";

const uplink = (topic: string): Uplink => ({
  sessionId: "s",
  tenantId: "t",
  deviceIntId: 1,
  topic,
  payload: new Uint8Array(),
  qos: 1,
  clientIp: "",
  receivedAtMs: 0,
});

/** A settled callback that records what it was called with. */
function outcome() {
  const calls: (Error | undefined)[] = [];
  return { calls, settled: (err?: Error) => void calls.push(err) };
}
const ignore = () => {};

describe("UplinkBuffer", () => {
  it("refuses a payload over its size limit with MESSAGE_TOO_LARGE, keeping nothing and using no seq", () => {
    const b = new UplinkBuffer(10, 4);
    const big = { ...uplink("a"), payload: new Uint8Array(5) };
    const o = outcome();
    expect(() => b.add(big, o.settled)).toThrow(expect.objectContaining({ code: "MESSAGE_TOO_LARGE" }) as Error);
    expect(b.size).toBe(0);
    expect(o.calls).toEqual([]);
    expect(b.add({ ...uplink("b"), payload: new Uint8Array(4) }, ignore)).toBe(1);
  });

  it("limits payloads to IOT_MAX_MESSAGE_SIZE's default, 262144 bytes, unless told otherwise", () => {
    const b = new UplinkBuffer();
    expect(b.add({ ...uplink("a"), payload: new Uint8Array(262_144) }, ignore)).toBe(1);
    expect(() => b.add({ ...uplink("b"), payload: new Uint8Array(262_145) }, ignore)).toThrow(AdapterError);
  });

  it("numbers uplinks 1, 2, 3, keeps them in seq order until acked and settles an acked one once without an error", () => {
    const b = new UplinkBuffer();
    const first = outcome();
    b.add(uplink("a"), first.settled);
    b.add(uplink("b"), ignore);
    b.add(uplink("c"), ignore);
    expect(b.pending().map((p) => p.seq)).toEqual([1, 2, 3]);
    expect(first.calls).toEqual([]);
    b.ack(1);
    b.ack(1);
    expect(first.calls).toEqual([undefined]);
    expect(b.pending().map((p) => p.uplink.topic)).toEqual(["b", "c"]);
  });

  it("never reuses a seq after acks", () => {
    const b = new UplinkBuffer();
    b.ack(b.add(uplink("a"), ignore));
    expect(b.add(uplink("b"), ignore)).toBe(2);
  });

  it("settles a rejected uplink with its reason and stops keeping it", () => {
    const b = new UplinkBuffer();
    const o = outcome();
    b.reject(b.add(uplink("a"), o.settled), "unknown device");
    expect(o.calls).toEqual([
      expect.objectContaining({ code: "UPLINK_REJECTED", message: expect.stringMatching(/unknown device/) as string }),
    ]);
    expect(b.size).toBe(0);
  });

  it("refuses with BUFFER_FULL beyond its limit", () => {
    const b = new UplinkBuffer(2);
    b.add(uplink("a"), ignore);
    b.add(uplink("b"), ignore);
    expect(() => b.add(uplink("c"), ignore)).toThrow(AdapterError);
    expect(() => b.add(uplink("c"), ignore)).toThrow(/buffer full/);
  });

  it("keeps uplinks waiting past its limit with addOrWait, admitting them oldest first as acks and rejections make room", () => {
    const b = new UplinkBuffer(2);
    const admitted: [number, string][] = [];
    const admit = (seq: number, u: Uplink) => void admitted.push([seq, u.topic]);
    expect(b.addOrWait(uplink("a"), ignore, admit)).toBe(1);
    expect(b.addOrWait(uplink("b"), ignore, admit)).toBe(2);
    const waiter = outcome();
    expect(b.addOrWait(uplink("c"), waiter.settled, admit)).toBe(0);
    expect(b.addOrWait(uplink("d"), ignore, admit)).toBe(0);
    // A plain add still finds the buffer full while others wait.
    expect(() => b.add(uplink("x"), ignore)).toThrow(/buffer full/);
    expect([b.size, b.waitingCount, admitted]).toEqual([2, 2, []]);
    b.ack(1);
    expect(admitted).toEqual([[3, "c"]]);
    b.reject(2, "unknown device");
    expect(admitted).toEqual([
      [3, "c"],
      [4, "d"],
    ]);
    expect([b.size, b.waitingCount]).toEqual([2, 0]);
    b.ack(3);
    expect(waiter.calls).toEqual([undefined]);
  });

  it("refuses with BUFFER_FULL once as many uplinks wait as its limit, and fails waiting ones on failAll", () => {
    const b = new UplinkBuffer(1, 4);
    const kept = outcome();
    const waiting = outcome();
    b.addOrWait(uplink("a"), kept.settled, ignore);
    // A payload over the size limit is refused before it could wait.
    const big = { ...uplink("big"), payload: new Uint8Array(5) };
    expect(() => b.addOrWait(big, ignore, ignore)).toThrow(
      expect.objectContaining({ code: "MESSAGE_TOO_LARGE" }) as Error,
    );
    b.addOrWait(uplink("b"), waiting.settled, ignore);
    expect(() => b.addOrWait(uplink("c"), ignore, ignore)).toThrow(/1 wait for room/);
    expect(b.failAll(new AdapterError("CLIENT_CLOSED", "closed"))).toBe(2);
    expect([...kept.calls, ...waiting.calls]).toEqual([
      expect.objectContaining({ code: "CLIENT_CLOSED" }),
      expect.objectContaining({ code: "CLIENT_CLOSED" }),
    ]);
    expect([b.size, b.waitingCount]).toEqual([0, 0]);
  });

  it("ignores acks for unknown seqs", () => {
    const b = new UplinkBuffer();
    b.add(uplink("a"), ignore);
    b.ack(99);
    expect(b.size).toBe(1);
  });

  it("fails every pending uplink on failAll", () => {
    const b = new UplinkBuffer();
    const o = outcome();
    b.add(uplink("a"), o.settled);
    b.failAll(new AdapterError("CLIENT_CLOSED", "closed"));
    expect(o.calls).toEqual([expect.objectContaining({ code: "CLIENT_CLOSED" })]);
  });

  it("settles the other uplinks of an ack when one's callback throws, and throws its error on the next tick", () => {
    const b = new UplinkBuffer();
    const after = outcome();
    b.add(uplink("a"), () => {
      throw new Error("hook failed");
    });
    b.add(uplink("b"), after.settled);
    // Rethrown on the next tick: that tick's function is taken here and called, instead of crashing the test run.
    const nextTick = vi.spyOn(process, "nextTick").mockImplementation(() => undefined);
    b.ack(1);
    b.ack(2);
    expect(after.calls).toEqual([undefined]);
    expect(b.size).toBe(0);
    const rethrow = nextTick.mock.calls[0]![0] as () => void;
    nextTick.mockRestore();
    expect(rethrow).toThrow("hook failed");
  });

  it("uplinkPromise resolves when settled without an error and rejects with the error otherwise", async () => {
    await expect(uplinkPromise((settled) => settled())).resolves.toBeUndefined();
    await expect(uplinkPromise((settled) => settled(new Error("no")))).rejects.toThrow("no");
  });
});
