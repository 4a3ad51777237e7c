import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openStore } from "./open-store.js";
import { describeDatabase } from "./postgres.js";
import { postgresEngine } from "./test-engines.js";

describe("PostgreSQL connection errors", () => {
  it("rejects an unreachable server with an error naming the database but not the password", async () => {
    const databaseUrl = "postgres://alice:s3cr3t-pw@127.0.0.1:1/fleet";
    const error = await openStore({ dataDir: "", databaseUrl }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error?.message).toMatch(/cannot reach PostgreSQL database "fleet" at alice@127\.0\.0\.1:1/);
    expect(error?.message).not.toContain("s3cr3t-pw");
  });

  it("describes a database URL without its password", () => {
    expect(describeDatabase("postgresql://bob:pw@db.example:6543/iot")).toBe('"iot" at bob@db.example:6543');
    expect(() => describeDatabase("postgres://bob:pw@[bad")).toThrow(/invalid PostgreSQL database URL/);
    expect(() => describeDatabase("postgres://bob:pw@[bad")).not.toThrow(/pw/);
  });

  it("refuses a schema name that is not a plain identifier", async () => {
    await expect(
      openStore({ dataDir: "", databaseUrl: "postgres://127.0.0.1:1/x", pgSchema: "a; drop" }),
    ).rejects.toThrow(/schema name/);
  });
});

describe.skipIf(postgresEngine === undefined)("PostgreSQL store", () => {
  const engine = postgresEngine!;
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  it("parses int8 as numbers on its own pool only, leaving pg's global parser alone", async () => {
    const { store } = await engine.open();
    const tenant = { tenantId: "t1", tenantName: "T", enable: 1, createAt: Date.now() };
    const { id, createAt } = await store.db
      .insertInto("tenants")
      .values(tenant)
      .returning(["id", "createAt"])
      .executeTakeFirstOrThrow();
    expect([id, createAt]).toEqual([1, tenant.createAt]);
    const row = await store.db
      .selectNoFrom((eb) => eb.cast<number>(eb.val("9007199254740991"), "bigint").as("big"))
      .executeTakeFirstOrThrow();
    expect(row.big).toBe(Number.MAX_SAFE_INTEGER);
    expect(pg.types.getTypeParser(20)("42")).toBe("42");
  });

  it("works inside its own schema, leaving the default schema without its tables", async () => {
    const { store, place } = await engine.open();
    const client = new pg.Client({ connectionString: engine.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ schema: string }>(
        "select table_schema as schema from information_schema.tables where table_name = 'device_events'",
      );
      expect(rows.map((r) => r.schema)).toContain(place);
      expect(rows.map((r) => r.schema)).not.toContain("public");
    } finally {
      await client.end();
    }
    expect(store.engine).toBe("postgres");
  });
});
