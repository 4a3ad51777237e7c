import {
  SqliteDialect,
  type AbortableOperationOptions,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type SqliteDatabase,
  type TransactionSettings,
} from "kysely";
import type { WriteLock } from "./write-lock.js";

/**
 * SQLite through kysely with a WriteLock taken for every write: each transaction holds it from BEGIN to its end,
 * and a statement outside a transaction that writes (one better-sqlite3 does not call a reader) holds it while it
 * runs. Reads need no lock: WAL lets them run beside another connection's write.
 */
export class LockedSqliteDialect extends SqliteDialect {
  readonly #database: SqliteDatabase;
  readonly #lock: WriteLock;

  constructor(database: SqliteDatabase, lock: WriteLock) {
    super({ database });
    this.#database = database;
    this.#lock = lock;
  }

  override createDriver(): Driver {
    return new LockedDriver(super.createDriver(), this.#database, this.#lock);
  }
}

/** A connection as LockedDriver hands it out: the driver's own, and whether it is inside a transaction. */
class LockedConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly database: SqliteDatabase,
    private readonly lock: WriteLock,
  ) {}

  async executeQuery<R>(query: CompiledQuery, options?: AbortableOperationOptions): Promise<QueryResult<R>> {
    // The statement is prepared once and cached (cachingStatements): asking whether it reads costs a Map lookup.
    if (this.inTransaction || this.database.prepare(query.sql).reader)
      return this.inner.executeQuery<R>(query, options);
    return this.lock.with(() => this.inner.executeQuery<R>(query, options));
  }

  streamQuery<R>(
    query: CompiledQuery,
    chunkSize: number,
    options?: AbortableOperationOptions,
  ): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize, options); // selects only (kysely's SQLite driver refuses others)
  }
}

/**
 * Hands out one LockedConnection per connection of the driver it wraps, and runs BEGIN, COMMIT, ROLLBACK and
 * savepoints through it: kysely logs the statements of the connection it was handed, and its query log is how the
 * node notices a full disk (often first from a failing COMMIT).
 */
class LockedDriver implements Driver {
  readonly #connections = new WeakMap<DatabaseConnection, LockedConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly database: SqliteDatabase,
    private readonly lock: WriteLock,
  ) {}

  init(options?: AbortableOperationOptions): Promise<void> {
    return this.inner.init(options);
  }

  async acquireConnection(options?: AbortableOperationOptions): Promise<DatabaseConnection> {
    const inner = await this.inner.acquireConnection(options);
    let c = this.#connections.get(inner);
    if (c === undefined) {
      c = new LockedConnection(inner, this.database, this.lock);
      this.#connections.set(inner, c);
    }
    return c;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = connection as LockedConnection;
    await this.lock.acquire();
    c.inTransaction = true; // BEGIN itself runs under the lock just taken
    try {
      await this.inner.beginTransaction(c, settings);
    } catch (error) {
      c.inTransaction = false;
      this.lock.release();
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#end(connection as LockedConnection, (c) => this.inner.commitTransaction(c));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#end(connection as LockedConnection, (c) => this.inner.rollbackTransaction(c));
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler["compileQuery"]): Promise<void> {
    await this.inner.savepoint!(connection, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await this.inner.rollbackToSavepoint!(connection, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await this.inner.releaseSavepoint!(connection, name, compile);
  }

  releaseConnection(connection: DatabaseConnection, options?: AbortableOperationOptions): Promise<void> {
    return this.inner.releaseConnection((connection as LockedConnection).inner, options);
  }

  destroy(options?: AbortableOperationOptions): Promise<void> {
    return this.inner.destroy(options);
  }

  /** Ends the transaction; the lock goes whether or not the COMMIT or ROLLBACK succeeded. */
  async #end(c: LockedConnection, end: (c: DatabaseConnection) => Promise<void>): Promise<void> {
    try {
      await end(c);
    } finally {
      c.inTransaction = false;
      this.lock.release();
    }
  }
}
