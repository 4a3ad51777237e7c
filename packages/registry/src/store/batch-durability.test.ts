import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { WalSync } from "./batch-durability.js";
import { engines } from "./test-engines.js";

const dir = mkdtempSync(join(tmpdir(), "wal-sync-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("WalSync", () => {
  it("makes every caller during a running sync share the single next one", async () => {
    const file = join(dir, "grouped-wal");
    writeFileSync(file, "frames");
    const wal = new WalSync(file);
    const first = wal.sync();
    const second = wal.sync();
    const third = wal.sync();
    expect(second).toBe(third);
    expect(second).not.toBe(first);
    await expect(Promise.all([first, second, third])).resolves.toEqual([undefined, undefined, undefined]);
    // Idle again: the next caller starts a sync of its own at once.
    const fourth = wal.sync();
    expect(fourth).not.toBe(second);
    await fourth;
    await wal.close();
  });

  it("rejects with the file's name when the WAL file cannot be opened, and tries again on the next sync", async () => {
    const file = join(dir, "missing-wal");
    const wal = new WalSync(file);
    await expect(wal.sync()).rejects.toThrow(/missing-wal/);
    writeFileSync(file, "frames");
    await expect(wal.sync()).resolves.toBeUndefined();
    await wal.close();
  });

  it("runs a batch with synchronous=NORMAL and leaves the connection at FULL for every other transaction", async () => {
    const sqlite = engines.find((e) => e.name === "sqlite")!;
    try {
      const { store } = await sqlite.open();
      const level = async (db: typeof store.db) =>
        (await sql<{ synchronous: number }>`pragma synchronous`.execute(db)).rows[0]!.synchronous;
      expect(await store.durability.transaction(store.db, (trx) => level(trx))).toBe(1);
      expect(await level(store.db)).toBe(2);
      await expect(store.durability.transaction(store.db, () => Promise.reject(new Error("boom")))).rejects.toThrow(
        "boom",
      );
      expect(await level(store.db)).toBe(2);
    } finally {
      await sqlite.cleanup();
    }
  });
});
