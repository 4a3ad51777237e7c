import { quietFor } from "@iot/config/testing";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import type { Store, UplinkRecord } from "./store.js";
import { engines } from "./test-engines.js";

function uplink(seq: number, over: Partial<UplinkRecord> = {}): UplinkRecord {
  return {
    msgKey: `adapter-1:${seq}`,
    tenantId: "t1",
    deviceIntId: 7,
    gatewayIntId: null,
    topic: "up/data",
    payload: new TextEncoder().encode(`{"seq":${seq}}`),
    ip: "10.0.0.1",
    qos: 1,
    msgTime: 1_700_000_000_000 + seq,
    ...over,
  };
}

async function countEvents(store: Store): Promise<number> {
  const { n } = await store.db
    .selectFrom("deviceEvents")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** The next uncaught exception, kept from vitest's own handlers (which would fail the run). */
function nextUncaught(): Promise<unknown> {
  return new Promise<unknown>((resolve) => {
    const listeners = process.listeners("uncaughtException");
    process.removeAllListeners("uncaughtException");
    process.once("uncaughtException", (err) => {
      for (const l of listeners) process.on("uncaughtException", l);
      resolve(err);
    });
  });
}

/** Uplink writer metrics for `engine.open` recording the rows of each batch the writer starts (`batch.mock.calls`). */
function recordingBatches() {
  const batch = vi.fn((_rows: number) => () => {});
  return { batch, hooks: { uplinkMetrics: { enqueued() {}, dequeued() {}, batch } } };
}

const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

describe.each(engines)("uplink writer on $name", (engine) => {
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  it("stores 1000 concurrent writes in one transaction and answers stored to each", async () => {
    const { batch: batches, hooks } = recordingBatches();
    const { store } = await engine.open({ batchMaxRows: 1000, batchMaxDelayMs: 1000, hooks });
    const outcomes = await Promise.all(range(1000).map((i) => store.uplinks.write(uplink(i))));
    expect(outcomes.every((o) => o === "stored")).toBe(true);
    expect(batches).toHaveBeenCalledTimes(1);
    expect(await countEvents(store)).toBe(1000);
  });

  it("commits a lone write in a batch of its own with no delay set, and the writes of one burst together", async () => {
    const { batch: batches, hooks } = recordingBatches();
    const { store } = await engine.open({ hooks });
    await expect(store.uplinks.write(uplink(1))).resolves.toBe("stored");
    expect(batches.mock.calls).toEqual([[1]]);
    const burst = await Promise.all(range(200, 2).map((i) => store.uplinks.write(uplink(i))));
    expect(burst.every((o) => o === "stored")).toBe(true);
    expect(batches.mock.calls).toEqual([[1], [200]]);
    expect(await countEvents(store)).toBe(201);
  });

  it("answers duplicate to a replayed msgKey and keeps the first row only", async () => {
    const { store } = await engine.open({ batchMaxDelayMs: 1 });
    await expect(store.uplinks.write(uplink(1))).resolves.toBe("stored");
    await expect(store.uplinks.write(uplink(1, { topic: "replayed" }))).resolves.toBe("duplicate");
    const rows = await store.db.selectFrom("deviceEvents").select(["msgKey", "topic"]).execute();
    expect(rows).toEqual([{ msgKey: "adapter-1:1", topic: "up/data" }]);
  });

  it("stores a msgKey repeated inside one batch once: stored for the first, duplicate for the rest", async () => {
    const { store } = await engine.open({ batchMaxRows: 10, batchMaxDelayMs: 1000 });
    const writes = [uplink(1), uplink(2), uplink(1), uplink(1)].map((r) => store.uplinks.write(r));
    await store.uplinks.flush();
    expect(await Promise.all(writes)).toEqual(["stored", "stored", "duplicate", "duplicate"]);
    expect(await countEvents(store)).toBe(2);
  });

  it("stores once an uplink an adapter replays to a second node after the first stored it, or while it stores it", async () => {
    // Two stores on one database stand for two central nodes: the adapter's msgKey (instance id and seq) is the same
    // wherever it replays, so the unique key decides, whichever transaction commits first.
    const { store: first, place } = await engine.open({ batchMaxDelayMs: 1 });
    const { store: second } = await engine.open({ batchMaxDelayMs: 1 }, place);
    await expect(first.uplinks.write(uplink(1))).resolves.toBe("stored");
    await expect(second.uplinks.write(uplink(1))).resolves.toBe("duplicate");
    const racing = await Promise.all(
      range(200, 2).flatMap((i) => [first.uplinks.write(uplink(i)), second.uplinks.write(uplink(i))]),
    );
    expect(racing.filter((o) => o === "stored")).toHaveLength(200);
    expect(await countEvents(first)).toBe(201);
  });

  it("resolves a write only once its row is committed and readable", async () => {
    const { store } = await engine.open({ batchMaxDelayMs: 20 });
    const outcomes = await Promise.all(
      range(5).map(async (i) => {
        await store.uplinks.write(uplink(i));
        return store.db
          .selectFrom("deviceEvents")
          .select("msgKey")
          .where("msgKey", "=", `adapter-1:${i}`)
          .executeTakeFirst();
      }),
    );
    expect(outcomes.map((r) => r?.msgKey)).toEqual(range(5).map((i) => `adapter-1:${i}`));
  });

  it("flushes a partial batch by itself after batchMaxDelayMs", async () => {
    const { store } = await engine.open({ batchMaxRows: 500, batchMaxDelayMs: 30 });
    const started = Date.now();
    await expect(store.uplinks.write(uplink(1))).resolves.toBe("stored");
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(await countEvents(store)).toBe(1);
  });

  it("keeps flushing after a batch timer fires with nothing left to write", async () => {
    const { store } = await engine.open({ batchMaxRows: 100, batchMaxDelayMs: 20 });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const begin = store.db.transaction.bind(store.db);
    vi.spyOn(store.db, "transaction").mockImplementationOnce(() => {
      const builder = begin();
      return { execute: async (fn: never) => (await gate, builder.execute(fn)) } as unknown as ReturnType<typeof begin>;
    });
    const first = store.uplinks.write(uplink(1)); // its commit hangs on the gate
    await quietFor(30, "past the 20 ms batch delay: the first batch is committing");
    const second = store.uplinks.write(uplink(2)); // its timer fires during that commit
    await quietFor(30, "past the second's 20 ms batch delay, fired during that commit");
    const third = store.uplinks.write(uplink(3)); // its timer outlives the batch that takes it
    open();
    expect(await Promise.all([first, second, third])).toEqual(["stored", "stored", "stored"]);
    await quietFor(40, "the third's batch timer fires after its batch was written");
    await expect(store.uplinks.write(uplink(4))).resolves.toBe("stored");
    expect(await countEvents(store)).toBe(4);
  }, 5_000);

  it("commits pending writes on flush() without waiting for the delay", async () => {
    const { store } = await engine.open({ batchMaxDelayMs: 60_000 });
    const write = store.uplinks.write(uplink(1));
    await store.uplinks.flush();
    await expect(write).resolves.toBe("stored");
  });

  it("rejects every write of a failed batch, stores none of it, and keeps the other batches", async () => {
    const { store } = await engine.open({ batchMaxRows: 3, batchMaxDelayMs: 1000 });
    const bad = uplink(4, { tenantId: null as unknown as string }); // violates NOT NULL
    const batches = [
      [uplink(1), uplink(2), uplink(3)],
      [bad, uplink(5), uplink(6)],
      [uplink(7), uplink(8), uplink(9)],
    ];
    const results = await Promise.allSettled(batches.flat().map((r) => store.uplinks.write(r)));
    expect(results.map((r) => r.status)).toEqual([
      ...Array(3).fill("fulfilled"),
      ...Array(3).fill("rejected"),
      ...Array(3).fill("fulfilled"),
    ]);
    expect((results[3] as PromiseRejectedResult).reason).toBe((results[5] as PromiseRejectedResult).reason);
    const keys = await store.db.selectFrom("deviceEvents").select("msgKey").orderBy("msgKey").execute();
    expect(keys.map((k) => k.msgKey)).toEqual([1, 2, 3, 7, 8, 9].map((i) => `adapter-1:${i}`));
    // The caller retries the good ones: they were never stored, so they are stored now.
    const retry = store.uplinks.write(uplink(5));
    await store.uplinks.flush();
    await expect(retry).resolves.toBe("stored");
  });

  it("splits a batch beyond the engine's bound-parameter limit into several inserts of one transaction", async () => {
    const { batch: batches, hooks } = recordingBatches();
    const { store } = await engine.open({ batchMaxRows: 7000, batchMaxDelayMs: 5000, hooks });
    const writes = range(7000).map((i) => store.uplinks.write(uplink(i)));
    await store.uplinks.flush();
    expect(new Set(await Promise.all(writes))).toEqual(new Set(["stored"]));
    expect(batches).toHaveBeenCalledTimes(1);
    expect(await countEvents(store)).toBe(7000);
  });

  it("round-trips binary payload bytes exactly, including a view into a larger buffer", async () => {
    const { store } = await engine.open({ batchMaxDelayMs: 1 });
    const all = Uint8Array.from(range(256));
    const view = new Uint8Array(Uint8Array.from([9, 9, 0, 255, 0, 128, 9]).buffer, 2, 4);
    await store.uplinks.write(uplink(1, { payload: all }));
    await store.uplinks.write(uplink(2, { payload: view }));
    await store.uplinks.write(uplink(3, { payload: new Uint8Array(0) }));
    const rows = await store.db.selectFrom("deviceEvents").select(["msgKey", "payload"]).orderBy("msgKey").execute();
    expect(rows.map((r) => [...r.payload])).toEqual([[...all], [0, 255, 0, 128], []]);
  });

  it("calls writeThen's callback once per write after the commit: stored, then duplicate for a repeated key", async () => {
    const { store } = await engine.open({ batchMaxDelayMs: 1 });
    const calls: [unknown, string | undefined][] = [];
    const done = new Promise<void>((resolve) => {
      const written = (error: unknown, outcome?: string) => {
        calls.push([error, outcome]);
        if (calls.length === 2) resolve();
      };
      store.uplinks.writeThen(uplink(1), written);
      store.uplinks.writeThen(uplink(1, { topic: "again" }), written);
    });
    expect(calls).toEqual([]);
    await done;
    // Its row was readable when the callback ran (checked after it, the rows cannot be fewer).
    expect(await countEvents(store)).toBe(1);
    expect(calls).toEqual([
      [undefined, "stored"],
      [undefined, "duplicate"],
    ]);
  });

  it("calls writeThen's callback with the refusal on a later tick once closed, never before it returns", async () => {
    const { store } = await engine.open();
    await store.close();
    const calls: unknown[] = [];
    const called = new Promise<void>((resolve) =>
      store.uplinks.writeThen(uplink(1), (error) => {
        calls.push(error);
        resolve();
      }),
    );
    expect(calls).toEqual([]);
    await called;
    expect(calls).toEqual([expect.objectContaining({ message: expect.stringMatching(/closed/) as string })]);
  });

  it("settles the rest of a batch when one write's callback throws, and throws that error on the next tick", async () => {
    const { store } = await engine.open({ batchMaxDelayMs: 60_000 });
    const uncaught = nextUncaught();
    store.uplinks.writeThen(uplink(1), () => {
      throw new Error("handler failed");
    });
    const second = store.uplinks.write(uplink(2));
    await store.uplinks.flush();
    await expect(second).resolves.toBe("stored");
    await expect(uncaught).resolves.toMatchObject({ message: "handler failed" });
  });

  it("hands each commit's records and the ids of those stored now to its stored listeners, until they stop", async () => {
    const { store } = await engine.open();
    const calls: { keys: string[]; ids: [string, number][]; readable: number }[] = [];
    const stop = store.uplinks.onStored((records, ids) => {
      // Called right after the commit: a count started from here sees the batch.
      const call = { keys: records.map((r) => r.msgKey), ids: [...ids], readable: -1 };
      calls.push(call);
      // Into this call's entry: the next commit may come before the count does.
      void countEvents(store).then((n) => (call.readable = n));
    });
    await store.uplinks.write(uplink(1));
    await Promise.all([store.uplinks.write(uplink(1)), store.uplinks.write(uplink(2))]);
    const stored = await store.db.selectFrom("deviceEvents").select(["msgKey", "id"]).orderBy("id").execute();
    const idOf = (key: string) => Number(stored.find((r) => r.msgKey === key)!.id);
    // The replayed key has no id; a commit storing nothing new calls nobody.
    expect(calls.map(({ keys, ids }) => ({ keys, ids }))).toEqual([
      { keys: ["adapter-1:1"], ids: [["adapter-1:1", idOf("adapter-1:1")]] },
      { keys: ["adapter-1:1", "adapter-1:2"], ids: [["adapter-1:2", idOf("adapter-1:2")]] },
    ]);
    await expect.poll(() => calls.map((c) => c.readable)).toEqual([1, 2]);
    await store.uplinks.write(uplink(1));
    stop();
    await store.uplinks.write(uplink(3));
    expect(calls).toHaveLength(2);
  });

  it("stores a batch whose stored listener throws, and throws that error on the next tick", async () => {
    const { store } = await engine.open({ batchMaxDelayMs: 60_000 });
    const uncaught = nextUncaught();
    store.uplinks.onStored(() => {
      throw new Error("listener failed");
    });
    const heard: number[] = [];
    store.uplinks.onStored((_records, ids) => heard.push(ids.size));
    const written = store.uplinks.write(uplink(1));
    await store.uplinks.flush();
    await expect(written).resolves.toBe("stored");
    expect(heard).toEqual([1]);
    await expect(uncaught).resolves.toMatchObject({ message: "listener failed" });
  });

  it("flushes pending writes on close, then refuses new ones", async () => {
    const { store } = await engine.open({ batchMaxDelayMs: 60_000 });
    const write = store.uplinks.write(uplink(1));
    await store.close();
    await expect(write).resolves.toBe("stored");
    await expect(store.uplinks.write(uplink(2))).rejects.toThrow(/closed/);
  });
});
