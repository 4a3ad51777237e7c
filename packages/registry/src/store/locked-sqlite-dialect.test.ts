import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql, type Kysely } from "kysely";
import { nextTurn } from "@iot/config/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { Database } from "./schema.js";
import { openSqlite } from "./sqlite.js";
import { WriteLock } from "./write-lock.js";

describe("SQLite connections sharing a WriteLock", () => {
  const dirs: string[] = [];
  const handles: Kysely<Database>[] = [];
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((h) => h.destroy()));
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  /** Two connections to one new database file, both taking `lock` for their writes. */
  async function twoConnections(lock: WriteLock) {
    const dir = mkdtempSync(join(tmpdir(), "locked-sqlite-"));
    dirs.push(dir);
    const a = openSqlite(dir, lock);
    await sql`create table t (n integer)`.execute(a);
    const b = openSqlite(dir, lock);
    const reader = openSqlite(dir, lock);
    handles.push(a, b, reader);
    return { a, b, reader };
  }

  const count = async (db: Kysely<Database>) =>
    Number((await sql<{ n: number }>`select count(*) as n from t`.execute(db)).rows[0]!.n);

  it("makes a write wait for another connection's transaction without blocking the event loop", async () => {
    const { a, b, reader } = await twoConnections(new WriteLock());
    let commit = () => {};
    const held = new Promise<void>((r) => (commit = r));
    let inserted = () => {};
    const insertedYet = new Promise<void>((r) => (inserted = r));
    const transaction = a.transaction().execute(async (tx) => {
      await sql`insert into t values (1)`.execute(tx);
      inserted();
      await held;
    });
    await insertedYet;
    // Outside a transaction, b's insert waits for the lock: in SQLite's busy handler it would stop this thread, and
    // with it the transaction that must end first, until the busy timeout failed it.
    const write = sql`insert into t values (2)`.execute(b);
    let ticks = 0;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (++ticks < 5) return;
        clearInterval(timer);
        resolve();
      }, 10);
    });
    expect(await count(reader)).toBe(0); // reads need no lock, and see nothing uncommitted
    commit();
    await transaction;
    await write;
    expect(await count(a)).toBe(2);
  });

  it("takes turns between transactions of both connections, each seeing the other's rows", async () => {
    const { a, b } = await twoConnections(new WriteLock());
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).transaction().execute(async (tx) => {
          const before = await count(tx);
          await nextTurn(); // the other connection's transactions try to run meanwhile
          await sql`insert into t values (${before + 1})`.execute(tx);
        }),
      ),
    );
    const { rows } = await sql<{ n: number }>`select n from t order by n`.execute(a);
    expect(rows.map((r) => r.n)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});
