/**
 * What a store's writes cost beside their rate, for bench:uplinks: the CPU seconds of this process and of the
 * PostgreSQL server's backends serving the store (read from /proc: the server runs on this machine), and the disk
 * bytes the tables grew by. CPU per uplink moves far less than a rate when other work shares the machine.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import type { Store } from "@iot/registry";
import { cpuSeconds } from "./figures.js";

/** CPU seconds of this process so far. */
export const selfCpu = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/**
 * The server processes of the store's connections: backends of the central node's application name that started
 * since `since` (the store's pool opened after it; another store opened at the same moment would be counted too).
 */
async function backendPids(store: Store, since: Date): Promise<number[]> {
  const r = await sql<{ pid: number }>`select pid from pg_stat_activity
    where application_name = 'iot-central' and datname = current_database() and backend_start >= ${since}`.execute(
    store.db,
  );
  return r.rows.map((row) => Number(row.pid));
}

/** CPU seconds of PostgreSQL backends, counted from `start()` to `stop()` (0 on SQLite). */
export function backendCpu(store: Store, since: Date) {
  const before = new Map<number, number>();
  return {
    async start(): Promise<void> {
      if (store.engine !== "postgres") return;
      for (const pid of await backendPids(store, since)) before.set(pid, cpuSeconds(pid) ?? 0);
    },
    async stop(): Promise<number> {
      if (store.engine !== "postgres") return 0;
      let used = 0;
      for (const pid of await backendPids(store, since)) used += (cpuSeconds(pid) ?? 0) - (before.get(pid) ?? 0);
      return used;
    },
  };
}

/** Bytes of every file in `dir` (a SQLite data folder: the database, its WAL and wal-index). */
export function folderBytes(dir: string): number {
  let bytes = 0;
  for (const name of readdirSync(dir)) {
    const s = statSync(join(dir, name));
    if (s.isFile()) bytes += s.size;
  }
  return bytes;
}

/** Bytes of every table of the store's PostgreSQL schema, with its indexes and TOAST. */
export async function schemaBytes(store: Store): Promise<number> {
  const r = await sql<{ bytes: string | number | null }>`select sum(pg_total_relation_size(c.oid)) as bytes
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p')`.execute(store.db);
  return Number(r.rows[0]?.bytes ?? 0);
}
