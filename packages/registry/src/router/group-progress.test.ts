import type { Kysely } from "kysely";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Database } from "../store/schema.js";
import { GroupProgress } from "./group-progress.js";

/**
 * A database whose recount of a task's logs takes `recountMs` (of the fake clock) and always finds members still
 * pending, recording when each recount started; the task's update does nothing.
 */
function slowDatabase(recountMs: number) {
  const starts: number[] = [];
  const chain = {
    select: () => chain,
    where: () => chain,
    groupBy: () => chain,
    set: () => chain,
    execute: async () => {
      starts.push(Date.now());
      await new Promise((resolve) => setTimeout(resolve, recountMs));
      return [{ publishStatus: 1, n: 100_000 }];
    },
    executeTakeFirst: async () => ({ numUpdatedRows: 1n }),
  };
  const db = { selectFrom: () => chain, updateTable: () => chain } as unknown as Kysely<Database>;
  return { db, starts };
}

afterEach(() => {
  vi.useRealTimers();
});

/** When each of three recounts asked one after another started, ms after the first, each taking `recountMs`. */
async function recountStarts(recountMs: number): Promise<number[]> {
  vi.useFakeTimers();
  const { db, starts } = slowDatabase(recountMs);
  const progress = new GroupProgress(db, 25);
  for (let i = 0; i < 3; i++) {
    // The fake clock moves in 5 ms steps until the recount is done, not "every timer there is": in the unit project's
    // shared process another file's leftover retry loop may have its timers faked too, and would never run out.
    let finished = false;
    const done = progress.refresh(7).then(() => (finished = true));
    while (!finished) await vi.advanceTimersByTimeAsync(5);
    await done;
  }
  return starts.map((t) => t - starts[0]!);
}

describe("GroupProgress", () => {
  it("spaces a task's recounts by its interval while they are quick", async () => {
    expect(await recountStarts(1)).toEqual([0, 25, 50]);
  });

  it("spaces a slow recount's next one by four times its duration, so a large group's wave cannot take the node", async () => {
    expect(await recountStarts(100)).toEqual([0, 400, 800]);
  });
});
