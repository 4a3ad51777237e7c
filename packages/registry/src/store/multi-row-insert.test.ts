import { afterAll, afterEach, describe, expect, it } from "vitest";
import { EitherEngineInsert, MultiRowInsert, chunkRows, engineOf } from "./multi-row-insert.js";
import { engines } from "./test-engines.js";

/** The row counts of the statements a batch of `rows` goes as. */
function statements(rows: number): number[] {
  const sizes: number[] = [];
  for (let left = rows; left > 0; left -= chunkRows(left)) sizes.push(chunkRows(left));
  return sizes;
}

describe("multi-row insert", () => {
  it("splits a batch into statements of power-of-two row counts, at most 256 rows each", () => {
    expect(statements(1)).toEqual([1]);
    expect(statements(300)).toEqual([256, 32, 8, 4]);
    expect(statements(1000)).toEqual([256, 256, 256, 128, 64, 32, 8]);
  });
});

describe.each(engines)("multi-row insert on $name", (engine) => {
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  it("inserts every row of a batch spanning several statements and answers what RETURNING gives, in order", async () => {
    const { store } = await engine.open();
    const insert = new MultiRowInsert(
      store.engine,
      "northbound_events",
      ["tenant_id", "device_int_id", "type", "event_time", "data", "create_at"],
      "returning event_time as t",
    );
    const values = Array.from({ length: 300 }, (_, i) => ["t1", null, "uplink", i, "{}", 1]).flat();
    const returned = await store.db.transaction().execute((trx) => insert.run(trx, values));
    expect(returned.map((r) => Number(r.t))).toEqual(Array.from({ length: 300 }, (_, i) => i));
    const stored = await store.db.selectFrom("northboundEvents").select("eventTime").orderBy("id").execute();
    expect(stored.map((r) => r.eventTime)).toEqual(Array.from({ length: 300 }, (_, i) => i));
  });

  it("writes through a handle or a transaction of either engine with that engine's SQL text", async () => {
    const { store } = await engine.open();
    expect(engineOf(store.db)).toBe(store.engine);
    const insert = new EitherEngineInsert(
      "northbound_events",
      ["tenant_id", "device_int_id", "type", "event_time", "data", "create_at"],
      "returning event_time as t",
    );
    const returned = await store.db.transaction().execute(async (trx) => {
      expect(engineOf(trx)).toBe(store.engine);
      return insert.run(trx, ["t1", null, "uplink", 7, "{}", 1, "t1", null, "uplink", 8, "{}", 1]);
    });
    expect(returned.map((r) => Number(r.t))).toEqual([7, 8]);
  });
});
