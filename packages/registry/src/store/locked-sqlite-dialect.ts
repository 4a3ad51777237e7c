import {
  SqliteDialect,
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

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // The statement is prepared once and cached (cachingStatements): asking whether it reads costs a Map lookup.
    if (this.inTransaction || this.database.prepare(query.sql).reader) return this.inner.executeQuery<R>(query);
    return this.lock.with(() => this.inner.executeQuery<R>(query));
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize); // selects only (kysely's SQLite driver refuses others)
  }
}

class LockedDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly database: SqliteDatabase,
    private readonly lock: WriteLock,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new LockedConnection(await this.inner.acquireConnection(), this.database, this.lock);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = connection as LockedConnection;
    await this.lock.acquire();
    try {
      await this.inner.beginTransaction(c.inner, settings);
    } catch (error) {
      this.lock.release();
      throw error;
    }
    c.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#end(connection as LockedConnection, (inner) => this.inner.commitTransaction(inner));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#end(connection as LockedConnection, (inner) => this.inner.rollbackTransaction(inner));
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler["compileQuery"]): Promise<void> {
    await this.inner.savepoint!((connection as LockedConnection).inner, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await this.inner.rollbackToSavepoint!((connection as LockedConnection).inner, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await this.inner.releaseSavepoint!((connection as LockedConnection).inner, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as LockedConnection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }

  /** Ends the transaction; the lock goes whether or not the COMMIT or ROLLBACK succeeded. */
  async #end(c: LockedConnection, end: (inner: DatabaseConnection) => Promise<void>): Promise<void> {
    try {
      await end(c.inner);
    } finally {
      c.inTransaction = false;
      this.lock.release();
    }
  }
}
