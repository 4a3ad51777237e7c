import type { KyselyPlugin } from "kysely";
import pino from "pino";
import { quietFor } from "@iot/config/testing";
import { afterAll, describe, expect, it } from "vitest";
import { PIPELINE_CURSOR_KEY } from "../store/pipeline-cursor-key.js";
import { engines } from "../store/test-engines.js";
import { DataPipeline } from "./data-pipeline.js";
import { cursorAndNewest, pipelineSetup, plainDevice, T0, telemetryUplink } from "./test-pipeline.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("data pipeline's reading and cursor on $name", (engine) => {
  it("saves its cursor past uplinks that derive nothing only after cursorSaveMs or on close, and with values at once", async () => {
    const { db, store, caller, pipeline, uplink, values, temp } = await pipelineSetup(engine);
    await pipeline.close();
    const plainUplink = await plainDevice({ db, store, caller });
    const saved = async () =>
      Number(
        (
          await db
            .selectFrom("settings")
            .select("value")
            .where("key", "=", PIPELINE_CURSOR_KEY)
            .executeTakeFirstOrThrow()
        ).value,
      );
    const newest = async () =>
      Number(
        (
          await db
            .selectFrom("deviceEvents")
            .select((eb) => eb.fn.max("id").as("id"))
            .executeTakeFirstOrThrow()
        ).id,
      );
    const lazy = new DataPipeline(db, pino({ level: "silent" }), { cursorSaveMs: 60_000 });
    await lazy.start();
    await lazy.flush();
    const before = await saved();
    await plainUplink(1);
    await lazy.flush();
    expect(lazy.stats.uplinks).toBe(0);
    expect(await saved()).toBe(before);
    // Values commit the cursor with them.
    await uplink("telemetry", JSON.stringify({ temp: 5 }), T0 + 2);
    await lazy.flush();
    expect(await values(temp.id)).toEqual([[T0 + 2, 5]]);
    expect(await saved()).toBe(await newest());
    await plainUplink(3);
    await lazy.flush();
    expect(await saved()).toBeLessThan(await newest());
    await lazy.close();
    expect(await saved()).toBe(await newest());
    // With no wait, every batch saves it.
    const eager = new DataPipeline(db, pino({ level: "silent" }), { cursorSaveMs: 0 });
    await eager.start();
    await plainUplink(4);
    await eager.flush();
    expect(await saved()).toBe(await newest());
    await eager.close();
  });

  it("goes past many uplinks of a product without streams reading rows per device, not per uplink", async () => {
    const { db, store, caller, pipeline } = await pipelineSetup(engine);
    await pipeline.close();
    const plainUplink = await plainDevice({ db, store, caller });
    for (let n = 0; n < 100; n++) await plainUplink(n);
    let rowsRead = 0;
    const counting: KyselyPlugin = {
      transformQuery: (a) => a.node,
      transformResult: async (a) => {
        rowsRead += a.result.rows.length;
        return a.result;
      },
    };
    const reader = new DataPipeline(db.withPlugin(counting), pino({ level: "silent" }));
    await reader.start();
    await reader.flush();
    await reader.close();
    // The cursor, the window summed up (one row for the one device), that device, its product's spec: a few rows.
    // Reading the window as rows answered one per uplink (100 and more).
    expect(rowsRead).toBeLessThan(20);
    const { cursor, newest } = await cursorAndNewest(db);
    expect(cursor).toBe(newest);
  });

  it("decodes the uplinks handed over at their commit without reading them back, and reads those stored otherwise", async () => {
    const { db, store, caller, pipeline, values, temp, device } = await pipelineSetup(engine);
    await pipeline.close();
    let payloadsRead = 0;
    const counting: KyselyPlugin = {
      transformQuery: (a) => a.node,
      transformResult: async (a) => {
        for (const row of a.result.rows) if ("payload" in row) payloadsRead++;
        return a.result;
      },
    };
    const reader = new DataPipeline(db.withPlugin(counting), pino({ level: "silent" }));
    const stop = store.uplinks.onStored(reader.offer);
    await reader.start();
    const write = (n: number) =>
      store.uplinks.write(telemetryUplink(caller.tenantId, device.id, `handed:${n}`, n, T0 + n));
    await Promise.all(Array.from({ length: 50 }, (_, n) => write(n)));
    await reader.flush();
    expect(payloadsRead).toBe(0);
    expect(await values(temp.id)).toHaveLength(50);
    // A row the writer did not store (an import, another node) is in the range: the whole range is read.
    await db
      .insertInto("deviceEvents")
      .values({
        tenantId: caller.tenantId,
        deviceIntId: device.id,
        gatewayIntId: null,
        topic: "telemetry",
        payload: Buffer.from(JSON.stringify({ temp: 100 })),
        ip: null,
        qos: 1,
        msgTime: T0 + 100,
        createAt: T0 + 100,
        msgKey: "imported:1",
      })
      .execute();
    await write(101);
    await reader.flush();
    expect(payloadsRead).toBe(2);
    expect((await values(temp.id)).slice(-2)).toEqual([
      [T0 + 100, 100],
      [T0 + 101, 101],
    ]);
    stop();
    await reader.close();
  });

  it("commits a batch through the store's durability and goes on only once it is synced", async () => {
    const { db, store, pipeline, uplink, values, temp } = await pipelineSetup(engine);
    await pipeline.close();
    const calls: string[] = [];
    let synced!: () => void;
    const durable = new DataPipeline(db, pino({ level: "silent" }), {
      durability: {
        transaction: (handle, work) => {
          calls.push("transaction");
          return store.durability.transaction(handle, work);
        },
        sync: () => {
          calls.push("sync");
          return new Promise<void>((resolve) => (synced = resolve));
        },
        close: () => Promise.resolve(),
      },
    });
    await uplink("telemetry", JSON.stringify({ temp: 5 }), T0);
    let flushed = false;
    const flushing = durable.flush().then(() => (flushed = true));
    await expect.poll(() => calls).toEqual(["transaction", "sync"]);
    // Committed and readable, but the batch is not done (nor its events announced) until the sync settles.
    expect(await values(temp.id)).toEqual([[T0, 5]]);
    await quietFor(50, "a flush that did not wait for the sync would settle within this");
    expect(flushed).toBe(false);
    synced();
    await flushing;
    expect(flushed).toBe(true);
  });

  it("goes on after a restart from the last uplink it went through, missing none", async () => {
    const { db, pipeline, uplink, values, temp } = await pipelineSetup(engine);
    await uplink("telemetry", JSON.stringify({ temp: 1 }), T0);
    await pipeline.flush();
    await pipeline.close();
    await uplink("telemetry", JSON.stringify({ temp: 2 }), T0 + 1);
    const restarted = new DataPipeline(db, pino({ level: "silent" }));
    await restarted.start();
    await restarted.flush();
    expect(await values(temp.id)).toEqual([
      [T0, 1],
      [T0 + 1, 2],
    ]);
  });
});
