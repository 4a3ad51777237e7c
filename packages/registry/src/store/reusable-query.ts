import type { Compilable, CompiledQuery, Kysely, KyselyPlugin } from "kysely";

/** A placeholder of a reusable query: a value no real argument or constant of the query takes. */
const placeholder = (n: number) => `\u0000placeholder ${n}\u0000`;

interface Compiled<R> {
  /** The plugins of the handle it was compiled on (camelCase, …), which shape the SQL and the rows. */
  readonly plugins: readonly KyselyPlugin[];
  readonly query: CompiledQuery<R>;
  /** For each bound parameter of the SQL: the index of the argument it takes, or -1 for a constant of the query. */
  readonly slots: readonly number[];
}

const samePlugins = (a: readonly KyselyPlugin[], b: readonly KyselyPlugin[]) =>
  a.length === b.length && a.every((p, i) => p === b[i]);

/**
 * A query whose SQL is built and compiled once per database (its dialect and plugins: a handle and its transactions
 * share one) instead of at every run. kysely builds,
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
  const run = compiledOnce<Db, R>((db, args) => build(db, ...(args as A)), build.length - 1);
  return (db, ...args) => run(db, args);
}

/**
 * `reusableQuery` for a query over an IN list (`where(column, "in", values)`): built and compiled once per list
 * length, each length its own SQL text. Meant for the chunks of `queryIn`, whose lengths are the powers of two from 8
 * to 512, so a query has at most seven compiled forms; AuthenticateBatch's lookups (thousands of devices per second in
 * a connect storm) built and compiled their IN queries at every batch. Arguments after the list (a time, …) are
 * bound like `reusableQuery`'s, and the list may be bound more than once.
 */
export function reusableInQuery<Db, V, R, A extends unknown[] = []>(
  build: (db: Kysely<Db>, values: V[], ...args: A) => Compilable<R>,
): (db: Kysely<Db>, values: V[], ...args: A) => Promise<R[]> {
  const byLength = new Map<number, Run<Db, R>>();
  const extra = build.length - 2;
  return (db, values, ...args) => {
    const n = values.length;
    let run = byLength.get(n);
    if (!run)
      byLength.set(
        n,
        (run = compiledOnce<Db, R>((d, all) => build(d, all.slice(0, n) as V[], ...(all.slice(n) as A)), n + extra)),
      );
    return run(db, [...values, ...args]);
  };
}

type Run<Db, R> = (db: Kysely<Db>, args: readonly unknown[]) => Promise<R[]>;

/** `build` compiled once per database with `arity` placeholders for its arguments; each run binds its own. */
function compiledOnce<Db, R>(build: (db: Kysely<Db>, args: unknown[]) => Compilable<R>, arity: number): Run<Db, R> {
  /** By the database's dialect adapter, which a Kysely handle shares with its transactions (a new one per run). */
  const compiled = new WeakMap<object, Compiled<R>[]>();
  const placeholders = Array.from({ length: arity }, (_, i) => placeholder(i));
  return async (db, args) => {
    const { adapter, plugins } = db.getExecutor();
    let forAdapter = compiled.get(adapter);
    if (!forAdapter) compiled.set(adapter, (forAdapter = []));
    let c = forAdapter.find((x) => samePlugins(x.plugins, plugins));
    if (!c) {
      const query = build(db, placeholders).compile();
      const slots = query.parameters.map((p) => placeholders.indexOf(p as string));
      for (let i = 0; i < arity; i++)
        if (!slots.includes(i)) throw new Error(`reusable query does not bind argument ${i}: ${query.sql}`);
      forAdapter.push((c = { plugins: [...plugins], query, slots }));
    }
    const { query, slots } = c;
    const parameters = slots.map((slot, i) => (slot < 0 ? query.parameters[i] : args[slot]));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
