import type { Engine } from "../store/store.js";

/** Why the database stopped answering, as the log line says it. */
export type DatabaseFault = "disk full" | "connection lost" | "unavailable";

/** A change of the database's state seen in the store's query log. */
export type DatabaseStateChange =
  | { state: "down"; engine: Engine; fault: DatabaseFault; error: string }
  | { state: "up"; engine: Engine; downForMs: number };

/**
 * How long, ms, statements must go without a fault before the database counts as up again: a nearly full disk lets
 * some writes through (SQLite reuses its WAL file's space) while others fail, which must not log a recovery each time.
 */
export const RECOVERY_QUIET_MS = 2_000;

/** Statements that write: a full disk is over only when one of these succeeds (reads work on a full disk). */
const WRITE = /^\s*(insert|update|delete|commit|replace)\b/i;

/**
 * One connection's (one store's) view of its database, fed every statement's outcome from kysely's query log. Tells
 * `listener` when the database goes down (the first failed statement that is a fault of the database, not of the
 * statement) and when it answers again (the first statement that succeeds RECOVERY_QUIET_MS after the last fault),
 * so the central node logs one line per fault and one per recovery instead of one per failed statement. Each store
 * has its own: two stores in one process (tests, the pipeline's thread) do not see each other's faults.
 */
export class DatabaseState {
  #down: { since: number; fault: DatabaseFault; lastFailure: number } | undefined;

  constructor(
    private readonly engine: Engine,
    private readonly listener: (change: DatabaseStateChange) => void = () => {},
  ) {}

  /** Feeds one statement's outcome (`error` undefined: it succeeded); `now` in epoch ms. */
  note(sql: string, error?: unknown, now = Date.now()): void {
    const was = this.#down;
    const engine = this.engine;
    if (error === undefined) {
      if (was === undefined || (was.fault === "disk full" && !WRITE.test(sql))) return;
      if (now - was.lastFailure < RECOVERY_QUIET_MS) return;
      this.#down = undefined;
      this.listener({ state: "up", engine, downForMs: now - was.since });
      return;
    }
    const fault = databaseFault(error);
    if (fault === undefined) return;
    if (was !== undefined) {
      was.lastFailure = now;
      return;
    }
    this.#down = { since: now, fault, lastFailure: now };
    const message = error instanceof Error ? error.message : JSON.stringify(error);
    this.listener({ state: "down", engine, fault, error: message });
  }
}

/** PostgreSQL SQLSTATE classes of a lost or refused connection: 08 (connection exception), 57P (operator action). */
const PG_CONNECTION = /^(08|57P)/;
/** Node's socket errors of a connection that broke or could not open. */
const SOCKET_ERRORS = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EHOSTUNREACH"]);

/**
 * The database's fault behind `error`, or undefined when the statement itself was wrong (a constraint, a syntax
 * error): SQLITE_FULL is a full disk; an I/O, open or read-only error is an unavailable file; PostgreSQL's connection
 * classes, a broken socket and pg's "Connection terminated" are a lost connection.
 */
export function databaseFault(error: unknown): DatabaseFault | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : "";
  if (typeof code === "string") {
    if (code === "SQLITE_FULL") return "disk full";
    if (/^SQLITE_(IOERR|CANTOPEN|READONLY|CORRUPT|NOTADB)/.test(code)) return "unavailable";
    if (PG_CONNECTION.test(code) || SOCKET_ERRORS.has(code)) return "connection lost";
  }
  if (/Connection terminated|connection timeout|Client has encountered a connection error/i.test(message))
    return "connection lost";
  return undefined;
}
