import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "./open-store.js";
import { SQLITE_FILE_NAME, sqliteConnectionOf } from "./sqlite.js";
import { WalCheckpointer } from "./wal-checkpointer.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "wal-checkpointer-"));
  dirs.push(d);
  return d;
};

async function until(check: () => boolean, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return check();
}

describe("WAL checkpoints of the SQLite store", () => {
  it("are left by the store's commits to a worker, once it writes in batches, which copies the WAL into the file", async () => {
    const dir = tempDir();
    const store = await openStore({ dataDir: dir });
    try {
      const connection = sqliteConnectionOf(store.db)!;
      expect(connection.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
      await store.durability.transaction(store.db, async () => {}); // the first batch starts the worker
      expect(connection.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
      const before = statSync(join(dir, SQLITE_FILE_NAME)).size;
      // A few hundred pages, below SQLite's own threshold of 1,000: only the worker checkpoints them.
      const insert = connection.prepare(
        "insert into tenants (tenant_id, tenant_name, enable, create_at) values (?, ?, 1, 0)",
      );
      for (let i = 0; i < 300; i++) insert.run(`t-${i}`, "x".repeat(3000));
      expect(await until(() => statSync(join(dir, SQLITE_FILE_NAME)).size > before + 300 * 3000)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it("go back to the store's connection when the checkpointer stops", async () => {
    const dir = tempDir();
    const store = await openStore({ dataDir: dir });
    const connection = sqliteConnectionOf(store.db)!;
    const errors: Error[] = [];
    const checkpointer = new WalCheckpointer(connection, join(dir, "missing.db"), (e) => errors.push(e));
    checkpointer.start();
    try {
      // The worker cannot open its file and ends: the connection checkpoints by itself again, and says so.
      expect(await until(() => connection.pragma("wal_autocheckpoint", { simple: true }) === 1000)).toBe(true);
      expect(errors.map((e) => e.message)).toContain("WAL checkpointer stopped; the store checkpoints by itself again");
    } finally {
      await checkpointer.close();
      await store.close();
    }
  });
});
