import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import type { CompiledQuery } from "kysely";
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

describe.each(engines)("typed multi-row insert on $name", (engine) => {
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  const COLUMNS = {
    msg_key: "text",
    tenant_id: "text",
    device_int_id: "bigint",
    gateway_int_id: "bigint",
    topic: "text",
    payload: "bytea",
    ip: "text",
    qos: "integer",
    msg_time: "bigint",
    create_at: "bigint",
  };
  /** Texts an array literal must quote or escape, and "NULL", which must stay a string. */
  const AWKWARD = ['a "quoted", {braced} text', "back\\slash", "NULL", "", "ünïcödé ✓", "line\nbreak"];

  it("stores every row of a batch given with column types exactly, in order, texts, bytes and nulls included", async () => {
    const { store } = await engine.open();
    const insert = new MultiRowInsert(store.engine, "device_events", COLUMNS, "returning msg_key as k, id");
    const rows = Array.from({ length: 1000 }, (_, i) => [
      `k${i}`,
      AWKWARD[i % AWKWARD.length]!,
      i,
      i % 3 === 0 ? null : i * 2,
      AWKWARD[(i + 1) % AWKWARD.length]!,
      Buffer.from([i & 0xff, 0, 0x5c, 0x22, 0x7b]),
      i % 2 === 0 ? null : "10.0.0.1",
      i % 3,
      1_700_000_000_000 + i,
      1,
    ]);
    const returned = await store.db.transaction().execute((trx) => insert.run(trx, rows.flat()));
    expect(returned.map((r) => r.k)).toEqual(rows.map((r) => r[0]));
    const stored = await store.db.selectFrom("deviceEvents").selectAll().orderBy("id").execute();
    expect(
      stored.map((r) => [
        r.msgKey,
        r.tenantId,
        Number(r.deviceIntId),
        r.gatewayIntId === null ? null : Number(r.gatewayIntId),
        r.topic,
        Buffer.from(r.payload),
        r.ip,
        r.qos,
        Number(r.msgTime),
        Number(r.createAt),
      ]),
    ).toEqual(rows);
  });

  it("sends a typed batch to PostgreSQL as one unnest statement whatever its size, and an empty one not at all", async () => {
    const { store } = await engine.open();
    const insert = new MultiRowInsert(store.engine, "uplink_counts", { tenant_id: "text", n: "bigint" });
    const texts = await store.db.transaction().execute(async (trx) => {
      const execute = vi.spyOn(trx, "executeQuery");
      await insert.run(trx, []);
      expect(execute).not.toHaveBeenCalled();
      await insert.run(trx, Array.from({ length: 700 }, (_, i) => [`t${i % 7}`, i]).flat());
      return execute.mock.calls.map(([query]) => (query as CompiledQuery).sql);
    });
    if (store.engine === "postgres") {
      expect(texts).toEqual([
        "insert into uplink_counts (tenant_id, n) select * from unnest($1::text[], $2::bigint[])",
      ]);
    } else expect(texts).toHaveLength(statements(700).length);
    const { n } = await store.db
      .selectFrom("uplinkCounts")
      .select((eb) => eb.fn.sum<number>("n").as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe((699 * 700) / 2);
  });
});
