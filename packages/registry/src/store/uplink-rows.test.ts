import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import type { UplinkRecord } from "./store.js";
import { engines } from "./test-engines.js";
import { sqliteConnectionOf } from "./sqlite.js";
import { SteppedUplinkRows } from "./uplink-rows.js";

function uplink(seq: number): UplinkRecord {
  return {
    msgKey: `adapter-1:${seq}`,
    tenantId: "t1",
    deviceIntId: 1 + (seq % 5),
    gatewayIntId: null,
    topic: "up/data",
    payload: Uint8Array.of(seq & 0xff),
    ip: null,
    qos: 1,
    msgTime: 1_700_000_000_000 + seq,
  };
}

const sqlite = engines.find((e) => e.name === "sqlite")!;

describe("uplink rows on SQLite", () => {
  afterEach(() => sqlite.closeAll());
  afterAll(() => sqlite.cleanup());

  it("inserts a batch's uplinks with one single-row statement run per row, not a multi-row INSERT", async () => {
    const { store } = await sqlite.open({ batchMaxRows: 100, batchMaxDelayMs: 1000 });
    const connection = sqliteConnectionOf(store.db)!;
    const prepare = vi.spyOn(connection, "prepare");
    const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => store.uplinks.write(uplink(i))));
    expect(new Set(outcomes)).toEqual(new Set(["stored"]));
    const texts = prepare.mock.calls.map(([text]) => text).filter((t) => t.startsWith("insert into device_events"));
    expect(texts).toHaveLength(1);
    expect(texts[0]!.match(/\(\?/g)).toHaveLength(1); // one VALUES tuple
  });

  it("answers the keys stored now with their rows' ids, leaving out those stored before", async () => {
    const { store } = await sqlite.open();
    await store.uplinks.write(uplink(2));
    const connection = sqliteConnectionOf(store.db)!;
    const rows = new SteppedUplinkRows(connection);
    const stored = await store.db
      .transaction()
      .execute((trx) => rows.insert(trx, [uplink(1), uplink(2), uplink(3)], Date.now()));
    const inTable = await store.db.selectFrom("deviceEvents").select(["id", "msgKey"]).orderBy("id").execute();
    expect([...stored].sort()).toEqual(
      inTable.filter((r) => r.msgKey !== "adapter-1:2").map((r) => [r.msgKey, Number(r.id)]),
    );
    expect([...stored.keys()].sort()).toEqual(["adapter-1:1", "adapter-1:3"]);
  });

  it("refuses to insert outside a transaction, storing nothing", async () => {
    const { store } = await sqlite.open();
    const rows = new SteppedUplinkRows(sqliteConnectionOf(store.db)!);
    expect(() => rows.insert(store.db, [uplink(1)], Date.now())).toThrow(/only inside a transaction/);
    const { n } = await store.db
      .selectFrom("deviceEvents")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(0);
  });
});
