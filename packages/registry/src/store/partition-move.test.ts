import { sql } from "kysely";
import { Migrator } from "kysely/migration";
import { afterAll, describe, expect, it } from "vitest";
import { listPartitions } from "./history-partitions.js";
import { migrationsFor } from "./migrations/migrate.js";
import { moveUnpartitionedRows } from "./partition-move.js";
import { openPostgres } from "./postgres.js";
import { postgresEngine } from "./test-engines.js";

const DAY = 86_400_000;
const ROWS = 1_000_000;
/** The newest uplink of the old database: its rows span the ten days before. */
const NOW = Date.UTC(2026, 5, 1);
/** Day partitions, 100,000 rows a batch. */
const DAYS = { batchRows: 100_000, spanDays: 1, now: NOW };

describe.skipIf(postgresEngine === undefined)("moving a database from before 0034 into partitions", () => {
  const engine = postgresEngine!;
  afterAll(() => engine.cleanup());

  it(
    "moves a million uplinks into their day partitions in bounded batches, stopping and going on where it was",
    { timeout: 120_000 },
    async () => {
      // A schema of the harness (dropped by cleanup), migrated up to just before 0034 by hand.
      const { store, place } = await engine.open();
      await store.close();
      const schema = `${place}_old`;
      const { db } = await openPostgres(engine.url!, schema);
      try {
        const migrator = new Migrator({
          db,
          provider: { getMigrations: async () => ({ ...migrationsFor("postgres") }) },
          migrationTableSchema: schema,
        });
        const names = Object.keys(migrationsFor("postgres")).sort();
        const before = names[names.indexOf("0034-partitioned-history") - 1]!;
        expect((await migrator.migrateTo(before)).error).toBeUndefined();
        // Loaded as a bulk load is: the secondary keys dropped, then built once over the rows.
        await sql`alter table device_events drop constraint device_events_msg_key_key`.execute(db);
        await sql`drop index device_events_device_tenant_id, device_events_tenant_id_id`.execute(db);
        await sql`insert into device_events (tenant_id, device_int_id, topic, payload, qos, msg_time, create_at, msg_key)
          select 't' || (i % 4), i % 1000, 'up', '\\x0102'::bytea, 1, ${NOW} - (${ROWS} - i) * ${(10 * DAY) / ROWS}::bigint,
            ${NOW}, 'a:' || i
          from generate_series(1, ${ROWS}) i`.execute(db);
        await sql`insert into control_logs (tenant_id, device_int_id, payload, qos, publish_status, create_at)
          select 't0', i, 'on', 1, 2, ${NOW}::bigint - i * 3600000 from generate_series(1, 100) i`.execute(db);
        const { rows: sums } = await sql<{ n: number; ids: string }>`
          select count(*) as n, sum(id)::text as ids from device_events`.execute(db);

        await sql`alter table device_events add constraint device_events_msg_key_key unique (msg_key)`.execute(db);
        await sql`create index device_events_device_tenant_id on device_events (device_int_id, tenant_id, id)`.execute(
          db,
        );
        await sql`create index device_events_tenant_id_id on device_events (tenant_id, id)`.execute(db);
        expect((await migrator.migrateTo("0034-partitioned-history")).error).toBeUndefined();
        // The first run stops after three batches, as a node stopped during its start would.
        let batches = 0;
        const first = await moveUnpartitionedRows(db, { ...DAYS, stop: () => batches++ === 3 });
        expect(first).toBe(300_000);
        const { rows: split } = await sql<{ moved: number; old: string | null }>`select count(*) as moved,
          to_regclass('device_events_unpartitioned')::text as old from device_events`.execute(db);
        expect(split[0]).toEqual({ moved: 300_000, old: "device_events_unpartitioned" });

        const progress: number[] = [];
        const second = await moveUnpartitionedRows(db, {
          ...DAYS,
          onProgress: (table, moved) => table === "device_events" && progress.push(moved),
        });
        expect(second).toBe(ROWS - 300_000 + 100);
        expect(progress.at(-1)).toBe(ROWS - 300_000);
        const { rows: after } = await sql<{ n: number; ids: string; stray: number; old: string | null }>`select
          count(*) as n, sum(id)::text as ids, (select count(*) from device_events_default) as stray,
          to_regclass('device_events_unpartitioned')::text as old from device_events`.execute(db);
        expect(after[0]).toEqual({ ...sums[0], stray: 0, old: null });
        const days = (await listPartitions(db, "device_events")).filter((p) => p.from !== undefined);
        expect(days.length).toBeGreaterThanOrEqual(11);
        expect(Number((await sql<{ n: number }>`select count(*) as n from control_logs`.execute(db)).rows[0]!.n)).toBe(
          100,
        );
        // New ids go on after the moved ones; a replayed key is still refused.
        const { rows: next } = await sql<{ id: number }>`insert into device_events
          (tenant_id, device_int_id, topic, payload, qos, msg_time, create_at, msg_key)
          values ('t0', 1, 'up', '\\x01', 1, ${NOW}, ${NOW}, 'b:1') returning id`.execute(db);
        expect(next[0]!.id).toBe(ROWS + 1);
        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        expect(await moveUnpartitionedRows(db, { now: NOW })).toBe(0);
      } finally {
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db);
        await db.destroy();
      }
    },
  );
});
