import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "./open-store.js";
import { SQLITE_FILE_NAME, sqliteConnectionOf } from "./sqlite.js";
import type { UplinkRecord } from "./store.js";
import { WalCheckpointThread } from "./wal-checkpoint-thread.js";

const dir = mkdtempSync(join(tmpdir(), "wal-checkpoint-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const uplink = (seq: number): UplinkRecord => ({
  msgKey: `checkpoint-test:${seq}`,
  tenantId: "t",
  deviceIntId: 1 + (seq % 20),
  gatewayIntId: null,
  topic: "up/telemetry",
  payload: Buffer.alloc(63, seq % 256),
  ip: "127.0.0.1",
  qos: 1,
  msgTime: 1_700_000_000_000 + seq,
});

/** Uplink rows in the database file itself, without its WAL (a copy of the file alone, opened on its own). */
function rowsInDatabaseFile(dataDir: string): number {
  const copy = join(dataDir, "copy.db");
  copyFileSync(join(dataDir, SQLITE_FILE_NAME), copy);
  const db = new BetterSqlite3(copy, { readonly: true });
  try {
    return (db.prepare("select count(*) as n from device_events").get() as { n: number }).n;
  } finally {
    db.close();
    rmSync(copy);
  }
}

describe("WalCheckpointThread", () => {
  it("copies committed uplinks into the database file from a thread, the connection's own checkpoint off", async () => {
    const dataDir = join(dir, "copies");
    const store = await openStore({ dataDir });
    try {
      expect(sqliteConnectionOf(store.db)!.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
      for (let batch = 0; batch < 5; batch++)
        await Promise.all(Array.from({ length: 100 }, (_, i) => store.uplinks.write(uplink(batch * 100 + i))));
      // Asked after the commits, or on its own within a second: every row reaches the database file.
      await expect.poll(() => rowsInDatabaseFile(dataDir), { timeout: 5_000, interval: 100 }).toBe(500);
    } finally {
      await store.close();
    }
  });

  it("keeps the WAL bounded under writes that never pause: the connection finishes what the thread could not", async () => {
    const dataDir = join(dir, "bounded");
    const store = await openStore({ dataDir });
    try {
      // A new round of writes in every turn of the event loop, none waiting for the one before: the writer commits
      // batch after batch while the thread checkpoints.
      const writes: Promise<unknown>[] = [];
      for (let seq = 0; seq < 60_000;) {
        for (const end = seq + 250; seq < end; seq++) writes.push(store.uplinks.write(uplink(seq)));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await Promise.all(writes);
      // The WAL starts over only once checkpointed whole. Without the connection finishing the thread's checkpoints
      // it grew to 12–29 MB for half these rows; with it, it stays near SQLite's own 1,000-page checkpoint (4–8 MB).
      expect(statSync(join(dataDir, `${SQLITE_FILE_NAME}-wal`)).size).toBeLessThan(20 * 1024 * 1024);
      const [row] = (await sql<{ n: number }>`select count(*) as n from device_events`.execute(store.db)).rows;
      expect(row!.n).toBe(60_000);
    } finally {
      await store.close();
    }
  }, 60_000);

  it("turns the connection's automatic checkpoint back on when closed", async () => {
    const file = join(dir, "closed.db");
    const connection = new BetterSqlite3(file);
    try {
      connection.pragma("journal_mode = WAL");
      connection.exec("create table t (x integer)");
      const thread = new WalCheckpointThread(connection, file);
      expect(connection.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
      connection.exec("insert into t values (1)");
      thread.committed();
      await thread.close();
      expect(connection.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
      thread.committed(); // stopped: nothing more happens
      expect(connection.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
    } finally {
      connection.close();
    }
  });
});
