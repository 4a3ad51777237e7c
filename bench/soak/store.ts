/**
 * The soak's read access to what the fleet stored, for the checks at the end of a run: the central node's SQLite file
 * (opened read-only), or the PostgreSQL database the two central nodes share. Statements use `?` placeholders.
 */
import { statSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";

export interface SoakStore {
  /** "SQLite" or "PostgreSQL", for the report. */
  readonly engine: string;
  all(sql: string, params?: readonly (number | string)[]): Promise<Record<string, unknown>[]>;
  /** Bytes the store takes: the file and its WAL, or the database's size. */
  bytes(): Promise<number>;
  close(): Promise<void>;
}

/** The central node's SQLite file, read-only. */
export function sqliteStore(file: string): SoakStore {
  const db = new DatabaseSync(file, { readOnly: true });
  const size = (f: string) => {
    try {
      return statSync(f).size;
    } catch {
      return 0;
    }
  };
  return {
    engine: "SQLite",
    all: async (sql, params = []) => db.prepare(sql).all(...params),
    bytes: async () => size(file) + size(`${file}-wal`),
    close: async () => db.close(),
  };
}

/** A PostgreSQL database (`pg_database_size` for its size). */
export async function postgresStore(url: string): Promise<SoakStore> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    engine: "PostgreSQL",
    async all(sql, params = []) {
      let n = 0;
      const text = sql.replace(/\?/g, () => `$${++n}`);
      return (await client.query(text, [...params])).rows as Record<string, unknown>[];
    },
    async bytes() {
      const r = await client.query("select pg_database_size(current_database()) as n");
      return Number(r.rows[0].n);
    },
    close: () => client.end(),
  };
}
