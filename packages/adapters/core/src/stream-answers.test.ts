import { afterEach, describe, expect, it, vi } from "vitest";
import { StreamAnswers } from "./stream-answers.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("StreamAnswers", () => {
  it("gives each call its own id and resolves each with the answer of its id, in any order", async () => {
    const calls = new StreamAnswers<string>(1000);
    const a = calls.open();
    const b = calls.open();
    expect(a.id).not.toBe(b.id);
    calls.settle(b.id, "for b");
    calls.settle(a.id, "for a");
    expect(await Promise.all([a.answer, b.answer])).toEqual(["for a", "for b"]);
    expect(calls.size).toBe(0);
  });

  it("rejects a call whose answer does not come within the deadline, and drops its late answer", async () => {
    vi.useFakeTimers();
    const calls = new StreamAnswers<string>(500);
    const a = calls.open();
    const failed = expect(a.answer).rejects.toThrow("no answer within 500 ms");
    vi.advanceTimersByTime(499);
    expect(calls.size).toBe(1);
    vi.advanceTimersByTime(1);
    await failed;
    calls.settle(a.id, "late");
    expect(calls.size).toBe(0);
  });

  it("rejects every waiting call with the stream's end, and leaves no timer behind", async () => {
    vi.useFakeTimers();
    const calls = new StreamAnswers<string>(500);
    const answers = [calls.open().answer, calls.open().answer];
    calls.failAll(new Error("stream ended"));
    for (const a of answers) await expect(a).rejects.toThrow("stream ended");
    expect(calls.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
