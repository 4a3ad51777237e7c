import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "./open-store.js";

const root = mkdtempSync(join(tmpdir(), "iot-sqlite-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("SQLite store", () => {
  it("creates a missing data directory and iot.db inside it", async () => {
    const dataDir = join(root, "a", "b");
    const store = await openStore({ dataDir });
    await store.close();
    expect(store.engine).toBe("sqlite");
    expect(existsSync(join(dataDir, "iot.db"))).toBe(true);
  });

  it("runs in WAL mode with synchronous FULL, a busy timeout and foreign keys on", async () => {
    const store = await openStore({ dataDir: join(root, "pragmas") });
    try {
      const value = async (name: string) =>
        Object.values((await sql.raw(`pragma ${name}`).execute(store.db)).rows[0] as object)[0];
      expect(await value("journal_mode")).toBe("wal");
      expect(await value("synchronous")).toBe(2); // FULL
      expect(await value("busy_timeout")).toBeGreaterThan(0);
      expect(await value("foreign_keys")).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("treats an empty database URL as SQLite", async () => {
    const store = await openStore({ dataDir: join(root, "empty-url"), databaseUrl: "" });
    await store.close();
    expect(store.engine).toBe("sqlite");
  });

  it("rejects a database URL of an engine it does not support", async () => {
    await expect(openStore({ dataDir: root, databaseUrl: "mysql://u:secret@h/db" })).rejects.toThrow(
      /unsupported database URL/,
    );
  });
});
