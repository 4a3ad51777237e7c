import { quietFor } from "@iot/config/testing";
import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { GroupCommit, type GroupCommitOptions } from "./group-commit.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("group commit on $name", (engine) => {
  /** A writer that answers each item with itself, and the batches it wrote. */
  async function batchesOf(options: GroupCommitOptions<number>) {
    const { store } = await engine.open();
    const batches: number[][] = [];
    const writer = new GroupCommit<number, number>(
      store.db,
      async (_tx, items) => {
        batches.push(items);
        return items;
      },
      options,
    );
    return { writer, batches };
  }

  it("writes what arrives together in one transaction, what arrives during a commit in the next, each answered in order", async () => {
    const { store } = await engine.open();
    const batches: number[][] = [];
    const writer = new GroupCommit<number, string>(store.db, async (tx, items) => {
      batches.push(items);
      for (const n of items)
        await tx
          .insertInto("settings")
          .values({ key: `k${n}`, value: String(n * 2) })
          .execute();
      return items.map((n) => `done ${n}`);
    });
    const first = [1, 2, 3].map((n) => writer.add(n));
    await new Promise((resolve) => setImmediate(resolve));
    const second = [4, 5].map((n) => writer.add(n)); // the first batch's transaction started
    expect(await Promise.all([...first, ...second])).toEqual([1, 2, 3, 4, 5].map((n) => `done ${n}`));
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    const stored = await store.db.selectFrom("settings").select(["key", "value"]).where("key", "like", "k%").execute();
    expect(stored.map((r) => r.value).sort()).toEqual(["10", "2", "4", "6", "8"]);
  });

  it("tells `committed` of a batch before it is synced and `after` ran, and answers the items after both", async () => {
    const { store } = await engine.open();
    const steps: string[] = [];
    const writer = new GroupCommit<number, number>(
      store.db,
      async (_tx, items) => {
        steps.push(`commit ${items.join(",")}`);
        return items.map((n) => n * 10);
      },
      {
        durability: store.durability,
        committed: (results) => steps.push(`committed ${results.join(",")}`),
        after: async (results) => {
          steps.push(`after ${results.join(",")}`);
        },
      },
    );
    const answers = await Promise.all([1, 2].map((n) => writer.add(n).then((r) => steps.push(`answered ${r}`))));
    expect(answers).toHaveLength(2);
    expect(steps).toEqual(["commit 1,2", "committed 10,20", "after 10,20", "answered 10", "answered 20"]);
  });

  it("gathers the items of a few milliseconds into one batch when asked to", async () => {
    const { writer, batches } = await batchesOf({ gatherMs: 50 });
    const first = writer.add(1);
    await quietFor(5, "the second item comes a little later, within the 50 ms gather");
    await Promise.all([first, writer.add(2)]);
    expect(batches).toEqual([[1, 2]]);
  });

  it("under load starts a transaction at most every commitEveryMs: items arriving one by one share the next", async () => {
    const { writer, batches } = await batchesOf({ commitEveryMs: 200 });
    const first = writer.add(1); // after a quiet time: at the next turn of the event loop
    await first;
    const later: Array<Promise<number>> = [];
    for (const n of [2, 3, 4]) {
      later.push(writer.add(n)); // each alone in its turn of the event loop, within 200 ms of the first transaction
      await quietFor(2, "items arrive one by one, each in a turn of its own");
    }
    await Promise.all(later);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it("under load asks for a sync at most every syncEveryMs, one sync for the batches committed meanwhile", async () => {
    const { store } = await engine.open();
    const steps: string[] = [];
    let syncs = 0;
    const durability = {
      transaction: store.durability.transaction.bind(store.durability),
      sync: () => {
        syncs++;
        steps.push("sync");
        return store.durability.sync();
      },
      close: () => Promise.resolve(),
    };
    const writer = new GroupCommit<number, number>(
      store.db,
      async (_tx, items) => {
        steps.push(`commit ${items.join(",")}`);
        return items;
      },
      { durability, syncEveryMs: 200, committed: (r) => steps.push(`committed ${r.join(",")}`) },
    );
    await writer.add(1);
    const later: Array<Promise<number>> = [];
    for (const n of [2, 3]) {
      later.push(writer.add(n).then((r) => (steps.push(`answered ${r}`), r)));
      await quietFor(5, "the items arrive one by one, each committed in a batch of its own");
    }
    expect(await Promise.all(later)).toEqual([2, 3]);
    expect(syncs).toBe(2);
    // Each batch is sent on at its commit; the answers wait for the one sync after both.
    expect(steps).toEqual([
      "commit 1",
      "committed 1",
      "sync",
      "commit 2",
      "committed 2",
      "commit 3",
      "committed 3",
      "sync",
      "answered 2",
      "answered 3",
    ]);
  });

  it("rejects every item of a failed batch and stores none of it, while the next batch goes on", async () => {
    const { store } = await engine.open();
    const writer = new GroupCommit<string, number>(store.db, async (tx, keys) => {
      for (const key of keys) await tx.insertInto("settings").values({ key, value: "v" }).execute();
      if (keys.includes("bad")) throw new Error("refused");
      return keys.map((k) => k.length);
    });
    const failed = Promise.allSettled([writer.add("a"), writer.add("bad")]);
    expect((await failed).map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(await writer.add("ok")).toBe(2);
    await writer.idle();
    const keys = await store.db.selectFrom("settings").select("key").where("key", "in", ["a", "bad", "ok"]).execute();
    expect(keys.map((k) => k.key)).toEqual(["ok"]);
  });
});
