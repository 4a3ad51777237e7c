import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { CamelCasePlugin, Kysely, SqliteDialect } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../store/open-store.js";
import type { Database } from "../store/schema.js";
import { ProductSpecs } from "./product-specs.js";

const root = mkdtempSync(join(tmpdir(), "iot-specs-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("ProductSpecs on SQLite", () => {
  it("reads a product's streams, points and metrics through indexes, scanning no table of the whole service", async () => {
    await (await openStore({ dataDir: root })).close();
    const statements: string[] = [];
    const sqlite = new BetterSqlite3(join(root, "iot.db"), { verbose: (s) => statements.push(String(s)) });
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: sqlite }),
      plugins: [new CamelCasePlugin()],
    });
    try {
      await new ProductSpecs().of(db, 1);
      const reads = statements.filter((s) => /^select/i.test(s));
      expect(reads.length).toBeGreaterThanOrEqual(4);
      const plans = reads.flatMap((s) =>
        (sqlite.prepare(`explain query plan ${s}`).all() as Array<{ detail: string }>).map((r) => r.detail),
      );
      expect(plans.filter((p) => p.startsWith("SCAN"))).toEqual([]);
      expect(plans).toContain("SEARCH metrics USING INDEX metrics_product (product_int_id=?)");
    } finally {
      await db.destroy();
    }
  });
});
