import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openStore } from "./open-store.js";
import type { Store } from "./store.js";
import { postgresEngine } from "./test-engines.js";

describe("read replicas on SQLite", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "read-replicas-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("are refused with a message saying they need PostgreSQL", async () => {
    await expect(
      openStore({ dataDir, reads: { urls: ["postgres://127.0.0.1:1/iot"], maxLagSeconds: 30 } }),
    ).rejects.toThrow("read replicas (IOT_DATABASE_READ_URL) need PostgreSQL");
  });
});

// A real streaming replica is made in test/postgres-replica.test.ts; here: replicas that cannot serve.
describe.skipIf(postgresEngine === undefined)("read replicas that cannot serve", () => {
  const engine = postgresEngine!;
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());
  /** The port of the server a read ran on. */
  const one = (db: Store["db"]) =>
    sql<{ port: number }>`select current_setting('port')::int as port`.execute(db).then((r) => r.rows[0]!.port);
  const primaryPort = () => Number(new URL(engine.url!).port || 5432);

  it("an unreachable replica is skipped, logged once, and its reads run on the primary", async () => {
    const logs: string[] = [];
    const { store } = await engine.open({
      reads: {
        urls: ["postgres://u:pw@127.0.0.1:1/iot"],
        maxLagSeconds: 30,
        pollMs: 50,
        log: (_level, message) => logs.push(message),
      },
    });
    const reads = store.reads!;
    expect(reads.status()).toMatchObject([{ name: "127.0.0.1:1", state: "down" }]);
    for (let i = 0; i < 5; i++) expect(await reads.read(`caller-${i}`, one)).toBe(primaryPort());
    await reads.poll();
    await reads.poll();
    expect(logs).toEqual([expect.stringMatching(/^read replica 127\.0\.0\.1:1 skipped, its reads go to the primary/)]);
    expect(logs.join()).not.toContain("pw");
  });

  it("a server that is not in recovery (a primary, or a promoted replica) is never read from", async () => {
    const logs: string[] = [];
    const { store } = await engine.open({
      reads: { urls: [engine.url!], maxLagSeconds: 30, log: (_level, message) => logs.push(message) },
    });
    const reads = store.reads!;
    expect(reads.status()).toMatchObject([{ state: "down", error: expect.stringMatching(/not a streaming replica/) }]);
    await reads.wrote("writer");
    expect(await reads.read("writer", one)).toBe(primaryPort());
    expect(logs).toHaveLength(1);
  });
});
