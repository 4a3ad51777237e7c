import { CompiledQuery, PostgresAdapter, type Kysely } from "kysely";
import type { Database } from "./schema.js";
import type { Engine } from "./store.js";

/** Most rows in one statement: 256 rows of 11 columns bind 2,816 values, far below either engine's limit. */
const MAX_ROWS_PER_STATEMENT = 256;

/**
 * A table's columns for an insert: their SQL names in the order of each row's values, or those names mapped to
 * their PostgreSQL types (`{ msg_key: "text", qos: "integer" }`), which lets PostgreSQL take the rows as one array a
 * column (`unnest`, see MultiRowInsert).
 */
export type InsertColumns = readonly string[] | Readonly<Record<string, string>>;

/**
 * A multi-row INSERT for the hot write paths (uplinks, their outbox events), with its SQL text made once per row
 * count instead of by the query builder for every batch: building, compiling and freezing kysely's query tree for
 * hundreds of rows, and preparing a new statement for each new batch size, were a fifth of the central node's
 * profile under MQTT load. A batch goes as statements of power-of-two row counts (a batch of 300: 256 + 32 + 8 + 4),
 * so at most nine SQL texts exist and the SQLite connection's statement cache keeps them all prepared.
 *
 * On PostgreSQL, columns given with their types go as `INSERT … SELECT * FROM unnest($1::text[], $2::bigint[], …)`:
 * one statement of as many parameters as columns for the whole batch, whatever its size, so its text is one short
 * string the server parses in microseconds; a 256-row VALUES list was 3,072 parameters to parse, plan and bind for
 * each chunk (docs/performance.md, "PostgreSQL writes").
 */
export class MultiRowInsert {
  readonly #engine: Engine;
  readonly #head: string;
  readonly #tail: string;
  readonly #width: number;
  readonly #texts = new Map<number, string>();
  /** The `unnest` statement, when PostgreSQL was given the column types. */
  readonly #arrays: string | undefined;

  /**
   * @param table the table's SQL name (snake_case).
   * @param columns the columns' SQL names, in the order of each row's values.
   * @param tail SQL after the VALUES list, e.g. `on conflict (msg_key) do nothing returning msg_key as k`.
   */
  constructor(engine: Engine, table: string, columns: InsertColumns, tail = "") {
    const names = Array.isArray(columns) ? (columns as readonly string[]) : Object.keys(columns);
    this.#engine = engine;
    this.#head = `insert into ${table} (${names.join(", ")}) `;
    this.#tail = tail ? ` ${tail}` : "";
    this.#width = names.length;
    if (engine === "postgres" && !Array.isArray(columns)) {
      const types = Object.values(columns as Record<string, string>);
      const arrays = types.map((type, i) => `$${i + 1}::${type}[]`).join(", ");
      this.#arrays = `${this.#head}select * from unnest(${arrays})${this.#tail}`;
    }
  }

  /**
   * Inserts `values.length / columns` rows (`values` holds them one after the other) through `db` — a transaction,
   * usually — and answers the rows the statements returned (the RETURNING clause of `tail`), in order.
   */
  async run(db: Kysely<Database>, values: readonly unknown[]): Promise<Record<string, unknown>[]> {
    const rows = values.length / this.#width;
    if (this.#arrays !== undefined) return rows === 0 ? [] : this.#runArrays(db, values, rows);
    const returned: Record<string, unknown>[] = [];
    for (let at = 0; at < rows;) {
      const n = chunkRows(rows - at);
      const params = n === rows ? values : values.slice(at * this.#width, (at + n) * this.#width);
      const query = CompiledQuery.raw(this.#text(n), params as unknown[]);
      const result = await db.executeQuery<Record<string, unknown>>(query);
      for (const row of result.rows) returned.push(row);
      at += n;
    }
    return returned;
  }

  /** PostgreSQL: every row in one `unnest` statement, its values handed over as one array a column. */
  async #runArrays(db: Kysely<Database>, values: readonly unknown[], rows: number): Promise<Record<string, unknown>[]> {
    const width = this.#width;
    const columns: unknown[][] = [];
    for (let c = 0; c < width; c++) {
      const column = new Array<unknown>(rows);
      for (let r = 0, at = c; r < rows; r++, at += width) column[r] = values[at];
      columns.push(column);
    }
    return (await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(this.#arrays!, columns))).rows;
  }

  /** The SQL text for `n` rows, made once. */
  #text(n: number): string {
    let text = this.#texts.get(n);
    if (text === undefined) {
      const tuples: string[] = [];
      let p = 0;
      for (let r = 0; r < n; r++) {
        const marks: string[] = [];
        for (let c = 0; c < this.#width; c++) marks.push(this.#engine === "postgres" ? `$${++p}` : "?");
        tuples.push(`(${marks.join(", ")})`);
      }
      text = `${this.#head}values ${tuples.join(", ")}${this.#tail}`;
      this.#texts.set(n, text);
    }
    return text;
  }
}

/** The engine a database handle (or transaction) runs on, for code handed only the handle. */
export const engineOf = (db: Kysely<Database>): Engine =>
  db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";

/** A MultiRowInsert for code handed only a transaction: each run uses the SQL text of the handle's engine. */
export class EitherEngineInsert {
  readonly #inserts: Record<Engine, MultiRowInsert>;

  constructor(table: string, columns: InsertColumns, tail = "") {
    this.#inserts = {
      sqlite: new MultiRowInsert("sqlite", table, columns, tail),
      postgres: new MultiRowInsert("postgres", table, columns, tail),
    };
  }

  run(db: Kysely<Database>, values: readonly unknown[]): Promise<Record<string, unknown>[]> {
    return this.#inserts[engineOf(db)].run(db, values);
  }
}

/** The largest power of two not above `rows` nor MAX_ROWS_PER_STATEMENT. */
export function chunkRows(rows: number): number {
  if (rows >= MAX_ROWS_PER_STATEMENT) return MAX_ROWS_PER_STATEMENT;
  return 2 ** Math.floor(Math.log2(rows));
}
