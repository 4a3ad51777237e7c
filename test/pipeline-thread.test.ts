import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { quietFor } from "@iot/config/testing";
import { afterAll, describe, expect, it } from "vitest";
import { createDataPoint } from "../packages/registry/src/domain/data-points.js";
import { createDataStream } from "../packages/registry/src/domain/data-streams.js";
import { createDevice } from "../packages/registry/src/domain/devices.js";
import { createProduct } from "../packages/registry/src/domain/products.js";
import { twoTenants } from "../packages/registry/src/domain/test-tenants.js";
import { PipelineThread } from "../packages/registry/src/pipeline/pipeline-thread.js";
import { cursorAndNewest, telemetryUplink } from "../packages/registry/src/pipeline/test-pipeline.js";
import { engines } from "../packages/registry/src/store/test-engines.js";
import { WriteLock } from "../packages/registry/src/store/write-lock.js";
import { bundleEntry } from "../scripts/bundle-entry.js";

/** The thread logs only a failure or a forced stop, neither expected here. */
const silent = { warn: () => {}, error: () => {} } as unknown as Parameters<typeof PipelineThread.start>[1];
/**
 * A stand-in for the pipeline's worker: `script` as the worker's module, and an empty file it may write to (its
 * `dataDir`), in a new folder.
 */
function standIn(script: string): { dir: string; entry: string; log: string } {
  const dir = mkdtempSync(join(tmpdir(), "pipeline-thread-"));
  const entry = join(dir, "worker.mjs");
  const log = join(dir, "log");
  writeFileSync(log, "");
  writeFileSync(entry, script);
  return { dir, entry, log };
}

const sqlite = engines.find((e) => e.name === "sqlite")!;
afterAll(() => sqlite.cleanup());

describe("the data pipeline on a worker thread (SQLite)", () => {
  it("stores the values of uplinks the main thread writes meanwhile, each once, and saves its cursor on close", async () => {
    const { store, db, caller, place } = await twoTenants(sqlite);
    const product = await createProduct(db, caller, { productName: "Meters", cloudProtocol: 1 });
    const temp = await createDataPoint(db, caller, {
      productId: product.productId,
      dataPointName: "temp",
      dataPointId: "temp",
      pointDataType: 1,
      dataTransType: 1,
    });
    await createDataStream(db, caller, {
      productId: product.productId,
      streamName: "telemetry",
      streamType: 1,
      streamDataType: 1,
      topic: "telemetry",
      dataPoints: [temp.id],
    });
    const device = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "m1",
      upLinkSystem: 1,
      authType: 1,
    });
    // The central node's own entry, bundled as the fleet runs it: its worker role runs the pipeline.
    const entry = await bundleEntry("packages/central/src/main.ts");
    const thread = await PipelineThread.start(
      { entry, dataDir: place, writeLock: store.writeLock!, logLevel: "silent" },
      silent,
    );
    const write = (n: number) =>
      store.uplinks.write(telemetryUplink(caller.tenantId, device.id, `k:${n}`, n, Date.now()));
    // Written in many commits, each followed by a wake-up as the uplink path sends it, while the worker writes
    // values: both connections take turns for the lock, and the last rounds land while a batch is under way.
    for (let round = 0; round < 50; round++) {
      await Promise.all(Array.from({ length: 20 }, (_, i) => write(round * 20 + i)));
      thread.wake();
    }
    const values = async () =>
      Number(
        (
          await db
            .selectFrom("pointValues")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    await expect.poll(values, { timeout: 5_000 }).toBe(1000);
    await thread.close();
    const stored = await db.selectFrom("pointValues").select("numValue").orderBy("numValue").execute();
    expect(stored.map((r) => r.numValue)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    const { cursor, newest } = await cursorAndNewest(db);
    expect(cursor).toBe(newest);
  });

  it("sends a wake-up only when none was sent since the worker's last batch started to read", async () => {
    // A stand-in worker: it notes each wake-up ("w") and, 300 ms later, the start of its batch's read ("r"), where
    // the real one clears the flag. It never answers with a batch: a wake-up asked for after a read must reach it
    // anyway, or those uplinks wait for the next one (the pipeline stalled at the end of a benchmark run that way).
    const { dir, entry, log } = standIn(
      `import { parentPort, workerData } from "node:worker_threads";
       import { appendFileSync } from "node:fs";
       const wakeSent = new Int32Array(workerData.wakeSent);
       parentPort.on("message", (m) => {
         if (m.type !== "wake") return parentPort.close();
         appendFileSync(workerData.dataDir, "w");
         setTimeout(() => {
           Atomics.store(wakeSent, 0, 0);
           appendFileSync(workerData.dataDir, "r");
         }, 300);
       });
       parentPort.postMessage({ type: "started" });`,
    );
    const thread = await PipelineThread.start(
      { entry, dataDir: log, writeLock: new WriteLock(), logLevel: "silent" },
      silent,
    );
    const said = () => readFileSync(log, "utf8");
    thread.wake();
    await expect.poll(said).toBe("w");
    thread.wake(); // before the read: that read takes these uplinks, no message
    await quietFor(50, "the thread reads within this: the next wake comes after it");
    thread.wake();
    await expect.poll(said).toBe("wr");
    thread.wake(); // after it: a message
    thread.wake(); // the same turn: the same message
    await expect.poll(said).toBe("wrw");
    await expect.poll(said).toBe("wrwr");
    await thread.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts the worker again when it ends by itself, and not once closed", async () => {
    // A stand-in worker that notes its start, and at its first wake-up takes the write lock and ends holding it, as an
    // error thrown out of a transaction would.
    const { dir, entry, log } = standIn(
      `import { parentPort, threadId, workerData } from "node:worker_threads";
       import { appendFileSync } from "node:fs";
       appendFileSync(workerData.dataDir, "s");
       parentPort.on("message", (m) => {
         if (m.type !== "wake") return parentPort.close();
         Atomics.compareExchange(new Int32Array(workerData.lock), 0, 0, threadId + 1);
         process.exit(1);
       });
       parentPort.postMessage({ type: "started" });`,
    );
    const said: string[] = [];
    const note = (msg: unknown) => said.push(String(msg));
    const logger = {
      warn: note,
      error: (_: unknown, msg: string) => note(msg),
    } as unknown as Parameters<typeof PipelineThread.start>[1];
    const lock = new WriteLock();
    const thread = await PipelineThread.start({ entry, dataDir: log, writeLock: lock, logLevel: "silent" }, logger);
    thread.wake();
    await expect.poll(() => readFileSync(log, "utf8"), { timeout: 5_000 }).toBe("ss");
    await lock.acquire(); // let go of when its holder ended
    lock.release();
    await thread.close();
    await quietFor(1_500, "a thread still running would write within this");
    expect(readFileSync(log, "utf8")).toBe("ss");
    expect(said).toEqual([
      "the data pipeline's thread ended holding the write lock",
      "the data pipeline's thread ended; starting it again",
    ]);
    rmSync(dir, { recursive: true, force: true });
  });
});
