import type { Kysely, KyselyPlugin } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { engines } from "./test-engines.js";
import { reusableInQuery, reusableQuery } from "./reusable-query.js";
import type { Database } from "./schema.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

/** Tenants with these ids (and names), maxDevices 10, 11, … in order. */
const insertTenants = (db: Kysely<Database>, ids: string[]) =>
  db
    .insertInto("tenants")
    .values(
      ids.map((tenantId, i) => ({
        tenantId,
        tenantName: tenantId,
        maxDevices: 10 + i,
        maxConnections: 0,
        maxUplinkRate: 0,
        enable: 1,
        createAt: 1,
        updateAt: null,
      })),
    )
    .execute();

describe.each(engines)("a reusable query on $name", (engine) => {
  it("answers each run for its own arguments, beside constants of the query, with camelCase columns", async () => {
    const { store } = await engine.open();
    const db = store.db;
    await insertTenants(db, ["t-a", "t-b"]);
    const tenantNamed = reusableQuery((d: Kysely<Database>, name: string, id: string) =>
      d
        .selectFrom("tenants")
        .select(["tenantId", "maxDevices"])
        .where("tenantName", "=", name)
        .where("tenantId", "=", id)
        .where("maxConnections", "=", 0),
    );
    expect(await tenantNamed(db, "t-a", "t-a")).toEqual([{ tenantId: "t-a", maxDevices: 10 }]);
    expect(await tenantNamed(db, "t-b", "t-b")).toEqual([{ tenantId: "t-b", maxDevices: 11 }]);
    expect(await tenantNamed(db, "t-a", "t-b")).toEqual([]);
  });

  it("compiles once for a database and its transactions, and again for a handle with other plugins", async () => {
    const { store } = await engine.open();
    let builds = 0;
    const tenantIds = reusableQuery((d: Kysely<Database>, name: string) => {
      builds++;
      return d.selectFrom("tenants").select("tenantId").where("tenantName", "=", name);
    });
    await tenantIds(store.db, "a");
    await store.db.transaction().execute((trx) => tenantIds(trx, "b"));
    await store.db.transaction().execute((trx) => tenantIds(trx, "c"));
    expect(builds).toBe(1);
    const passThrough: KyselyPlugin = { transformQuery: (a) => a.node, transformResult: async (a) => a.result };
    await tenantIds(store.db.withPlugin(passThrough), "d");
    expect(builds).toBe(2);
  });

  it("refuses a query that does not bind every argument", async () => {
    const { store } = await engine.open();
    const unbound = reusableQuery((d: Kysely<Database>, _id: string) => d.selectFrom("tenants").select("tenantId"));
    await expect(unbound(store.db, "x")).rejects.toThrow(/does not bind argument 0/);
  });

  it("compiles an IN query once per list length and answers each run for its own values", async () => {
    const { store } = await engine.open();
    await insertTenants(store.db, ["t-a", "t-b", "t-c"]);
    let builds = 0;
    const limits = reusableInQuery((d: Kysely<Database>, ids: string[]) => {
      builds++;
      return d
        .selectFrom("tenants")
        .select(["tenantId", "maxDevices"])
        .where("tenantId", "in", ids)
        .orderBy("tenantId");
    });
    expect(await limits(store.db, ["t-a", "t-c"])).toEqual([
      { tenantId: "t-a", maxDevices: 10 },
      { tenantId: "t-c", maxDevices: 12 },
    ]);
    expect(await limits(store.db, ["t-b", "t-x"])).toEqual([{ tenantId: "t-b", maxDevices: 11 }]);
    expect(await store.db.transaction().execute((trx) => limits(trx, ["t-b", "t-b", "t-a"]))).toHaveLength(2);
    expect(builds).toBe(2);
  });

  it("binds the arguments after an IN list, and the list wherever the query uses it, at each run", async () => {
    const { store } = await engine.open();
    await insertTenants(store.db, ["t-a", "t-b", "t-c"]);
    let builds = 0;
    const above = reusableInQuery((d: Kysely<Database>, ids: string[], min: number) => {
      builds++;
      return d
        .selectFrom("tenants")
        .select("tenantId")
        .where("tenantId", "in", ids)
        .where("tenantName", "in", ids)
        .where("maxDevices", ">=", min)
        .orderBy("tenantId");
    });
    expect(await above(store.db, ["t-a", "t-c"], 11)).toEqual([{ tenantId: "t-c" }]);
    expect(await above(store.db, ["t-a", "t-b"], 10)).toEqual([{ tenantId: "t-a" }, { tenantId: "t-b" }]);
    expect(await above(store.db, ["t-a", "t-b", "t-c"], 12)).toEqual([{ tenantId: "t-c" }]);
    expect(builds).toBe(2);
  });
});
