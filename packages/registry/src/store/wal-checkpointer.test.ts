import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { WalSync } from "./batch-durability.js";
import { openStore } from "./open-store.js";
import { SQLITE_FILE_NAME, sqliteConnectionOf } from "./sqlite.js";
import type { UplinkRecord } from "./store.js";
import { FALLBACK_AUTOCHECKPOINT_PAGES } from "./wal-checkpointer.js";

const dir = mkdtempSync(join(tmpdir(), "wal-checkpointer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const payload = new Uint8Array(2000).fill(7);
let seq = 0;
const uplink = (): UplinkRecord => {
  seq++;
  return {
    msgKey: `checkpoint-test:${seq}`,
    tenantId: "t",
    deviceIntId: 1 + (seq % 8),
    gatewayIntId: null,
    topic: "telemetry",
    payload,
    ip: null,
    qos: 1,
    msgTime: Date.now(),
    metadata: null,
    resendId: null,
    maybeResend: false,
  };
};

describe("WalCheckpointer", () => {
  it("checkpoints a store's WAL from its worker, leaving the writer's own checkpoint as a fallback far beyond SQLite's 1000 pages", async () => {
    const store = await openStore({ dataDir: join(dir, "store") });
    try {
      const connection = sqliteConnectionOf(store.db)!;
      expect(connection.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
      // About 1,500 WAL pages of uplinks: past SQLite's default, short of the fallback.
      for (let batch = 0; batch < 30; batch++)
        await Promise.all(Array.from({ length: 100 }, () => store.uplinks.write(uplink())));
      expect(connection.pragma("wal_autocheckpoint", { simple: true })).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
      const checkpointer = (store.durability as WalSync).checkpointer!;
      expect(await checkpointer.runNow()).toBeGreaterThan(0);
      // Every frame was copied into the database file: the next write starts the WAL over.
      await store.uplinks.write(uplink());
      const [wal] = connection.pragma("wal_checkpoint(PASSIVE)") as Array<{ log: number }>;
      expect(wal!.log).toBeLessThan(100);
    } finally {
      await store.close();
    }
  });

  it("keeps the WAL file bounded under writes that never pause: the writer's fallback checkpoint starts it over", async () => {
    const dataDir = join(dir, "bounded");
    const store = await openStore({ dataDir });
    try {
      const pageSize = sqliteConnectionOf(store.db)!.pragma("page_size", { simple: true }) as number;
      // A new round of writes in every turn of the event loop, none waiting for the one before: the worker's
      // checkpoints never catch up with the writer, so SQLite never finds the WAL copied whole and never starts it
      // over by itself (without the writer's pause for the worker, it grew past 90 MB here).
      const writes: Promise<unknown>[] = [];
      let largest = 0;
      for (let i = 0; i < 40_000;) {
        for (const end = i + 250; i < end; i++) writes.push(store.uplinks.write(uplink()));
        await new Promise((resolve) => setImmediate(resolve));
        largest = Math.max(
          largest,
          statSync(join(dataDir, `${SQLITE_FILE_NAME}-wal`), { throwIfNoEntry: false })?.size ?? 0,
        );
      }
      await Promise.all(writes);
      expect(largest).toBeGreaterThan(1000 * pageSize);
      expect(largest).toBeLessThan((FALLBACK_AUTOCHECKPOINT_PAGES + 2000) * (pageSize + 24));
    } finally {
      await store.close();
    }
  }, 60_000);

  it("checkpoints on its own once 1000 WAL pages wait to be copied, and not before", async () => {
    const store = await openStore({ dataDir: join(dir, "threshold") });
    try {
      await store.uplinks.write(uplink());
      const checkpointer = (store.durability as WalSync).checkpointer!;
      await new Promise((r) => setTimeout(r, 200));
      expect(await checkpointer.checkpoints()).toBe(0);
      // About 1,500 pages: the worker sees them within its next looks.
      for (let batch = 0; batch < 30; batch++)
        await Promise.all(Array.from({ length: 100 }, () => store.uplinks.write(uplink())));
      const until = Date.now() + 5_000;
      while ((await checkpointer.checkpoints()) === 0 && Date.now() < until)
        await new Promise((r) => setTimeout(r, 20));
      expect(await checkpointer.checkpoints()).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it("stops its worker on close, after which it runs no more checkpoints", async () => {
    const store = await openStore({ dataDir: join(dir, "closing") });
    await store.uplinks.write(uplink());
    const checkpointer = (store.durability as WalSync).checkpointer!;
    expect(checkpointer.running).toBe(true);
    await store.close();
    expect(checkpointer.running).toBe(false);
    expect(await checkpointer.runNow()).toBe(0);
  });
});
