import type { Compilable, CompiledQuery, Kysely } from "kysely";

/** A placeholder of a reusable query: a value no real argument or constant of the query takes. */
export const placeholder = (n: number) => `\u0000placeholder ${n}\u0000`;

interface Compiled<R> {
  readonly query: CompiledQuery<R>;
  /** For each bound parameter of the SQL: the index of the argument it takes, or -1 for a constant of the query. */
  readonly slots: readonly number[];
}

/**
 * A query whose SQL is built and compiled once per database handle instead of at every run. kysely builds,
 * transforms and compiles each query from scratch, which cost more than SQLite's own work for the small lookups of
 * a device connect (thousands per second in a connect storm); these differ from run to run only in their
 * arguments. `build` declares its arguments after the database (no defaults, no rest); it is called once with
 * `placeholder(i)` standing for argument i and must bind each as a parameter (a `where` value, not an identifier or a
 * `limit`); each run binds its own arguments in their place. Rows come through the database's plugins (camelCase)
 * as with `execute()`.
 */
export function reusableQuery<Db, A extends unknown[], R>(
  build: (db: Kysely<Db>, ...args: A) => Compilable<R>,
): (db: Kysely<Db>, ...args: A) => Promise<R[]> {
  const compiled = new WeakMap<Kysely<Db>, Compiled<R>>();
  const arity = build.length - 1;
  const placeholders = Array.from({ length: arity }, (_, i) => placeholder(i));
  return async (db, ...args) => {
    let c = compiled.get(db);
    if (!c) {
      const query = build(db, ...(placeholders as A)).compile();
      const slots = query.parameters.map((p) => placeholders.indexOf(p as string));
      for (let i = 0; i < arity; i++)
        if (!slots.includes(i)) throw new Error(`reusable query does not bind argument ${i}: ${query.sql}`);
      compiled.set(db, (c = { query, slots }));
    }
    const { query, slots } = c;
    const parameters = slots.map((slot, i) => (slot < 0 ? query.parameters[i] : args[slot]));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
