import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from "node:fs";
import { endianness, tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { WalSync } from "./batch-durability.js";
import type { Store, UplinkRecord } from "./store.js";
import { engines } from "./test-engines.js";
import { SQLITE_FILE_NAME, openSqlite } from "./sqlite.js";
import { CheckpointedWal, readWalIndex } from "./wal-checkpoints.js";

const sqlite = engines.find((e) => e.name === "sqlite")!;
const scratch = mkdtempSync(join(tmpdir(), "wal-checkpoints-"));

const uplink = (seq: number): UplinkRecord => ({
  msgKey: `adapter-1:${seq}`,
  tenantId: "t1",
  deviceIntId: 7 + (seq % 20),
  gatewayIntId: null,
  topic: `telemetry/${seq % 10}`,
  payload: new TextEncoder().encode(`{"seq":${seq},"temperature":21.5,"humidity":40}`.padEnd(200, " ")),
  ip: "10.0.0.1",
  qos: 1,
  msgTime: 1_700_000_000_000 + seq,
});

/** The WAL's frame count as its wal-index says, now. */
function walFrames(dir: string): number {
  const fd = openSync(join(dir, `${SQLITE_FILE_NAME}-shm`), "r");
  try {
    return readWalIndex(fd).frames;
  } finally {
    closeSync(fd);
  }
}

/** The WAL's frames after each of `rounds` batches of `rows` uplinks. */
async function framesAfterBatches(store: Store, dir: string, rounds: number, rows: number): Promise<number[]> {
  const frames: number[] = [];
  for (let r = 0; r < rounds; r++) {
    await Promise.all(Array.from({ length: rows }, (_, i) => store.uplinks.write(uplink(r * rows + i))));
    frames.push(walFrames(dir));
  }
  return frames;
}

describe("WAL checkpoints off the event loop", () => {
  afterEach(() => sqlite.closeAll());
  afterAll(async () => {
    await sqlite.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("copies the WAL into the database file and lets SQLite start it over, far below its automatic checkpoint", async () => {
    const { store, place: dir } = await sqlite.open({ batchMaxRows: 500 });
    const frames = await framesAfterBatches(store, dir, 60, 500);
    // SQLite's own checkpoint is set to 10,000 frames here: the WAL starting over well before says these ran.
    const restarts = frames.filter((f, i) => i > 0 && f < frames[i - 1]!).length;
    expect(restarts).toBeGreaterThan(2);
    expect(Math.max(...frames)).toBeLessThan(3_000);
    expect(statSync(join(dir, `${SQLITE_FILE_NAME}-wal`)).size).toBeLessThan(3_000 * 4_200);
  });

  it("keeps every frame in the WAL when the database file's sync fails, reports it once and gives SQLite its checkpoint back", async () => {
    const dir = mkdtempSync(join(scratch, "failing-"));
    const db = openSqlite(dir);
    const file = join(dir, SQLITE_FILE_NAME);
    const errors: Error[] = [];
    const wal = new CheckpointedWal(new WalSync(`${file}-wal`), db, file, (e) => errors.push(e), {
      datasync: () => Promise.reject(new Error("EIO: i/o error, fdatasync")),
    });
    try {
      await sql`create table t (id integer primary key, body text)`.execute(db);
      const insertRows = async (from: number, n: number) => {
        for (let i = from; i < from + n; i += 100)
          await wal.transaction(db, (trx) =>
            trx
              .insertInto("t" as never)
              .values(Array.from({ length: 100 }, (_, k) => ({ id: i + k, body: "x".repeat(300) })) as never)
              .execute(),
          );
        await wal.sync();
      };
      await insertRows(0, 20_000);
      await expect.poll(() => errors.length).toBe(1);
      expect(errors[0]!.message).toMatch(/WAL checkpoint of .*iot\.db failed: EIO/);
      const { rows } = await sql<{ walAutocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
      expect(rows[0]!.walAutocheckpoint).toBe(1000);
      // The copy happened, but the WAL may not start over: its frames only grow, whatever SQLite checkpoints.
      const before = walFrames(dir);
      await insertRows(20_000, 20_000);
      expect(walFrames(dir)).toBeGreaterThan(before);
      expect(errors).toHaveLength(1);
      const { rows: count } = await sql<{ n: number }>`select count(*) as n from t`.execute(db);
      expect(count[0]!.n).toBe(40_000);
    } finally {
      await wal.close();
      await db.destroy();
    }
  });

  it("refuses to read a wal-index of another version than the documented one, and reads an unwritten one as empty", () => {
    const file = join(scratch, "other-version-shm");
    const header = Buffer.alloc(136);
    if (endianness() === "LE") header.writeUInt32LE(3007001, 0);
    else header.writeUInt32BE(3007001, 0);
    writeFileSync(file, header);
    const fd = openSync(file, "r");
    try {
      expect(() => readWalIndex(fd)).toThrow(/wal-index version 3007001, not 3007000/);
      writeFileSync(file, Buffer.alloc(136)); // a header no connection has written yet
      expect(readWalIndex(fd)).toEqual({ frames: 0, copied: 0 });
    } finally {
      closeSync(fd);
    }
  });
});
