import { CamelCasePlugin, Kysely, PostgresDialect, type Logger } from "kysely";
import pg from "pg";
import { OneSchemaPostgresDialect } from "./one-schema-dialect.js";
import type { Database } from "./schema.js";

/** PostgreSQL type OID of int8/bigint (ids, epoch-ms times, `count(*)`). */
const INT8_OID = 20;

/** Most connections one central node keeps open to PostgreSQL. */
const POOL_MAX = 10;

/** `application_name` of the central node's connections, as pg_stat_activity shows them. */
const APPLICATION_NAME = "iot-central";

/** How long, in ms, opening a connection may take before it fails. */
const CONNECT_TIMEOUT_MS = 10_000;
/** The same for a read replica: a read waits no longer for one before it goes to the primary. */
const REPLICA_CONNECT_TIMEOUT_MS = 2_000;
/**
 * How long the server lets one of our connections sit inside a transaction without a statement, ms. A node frozen
 * mid-transaction (a stopped process, a host cut off without a reset) would otherwise hold its row locks as long as
 * its TCP connection looks alive, and every other node writing the same rows would wait with it: the server ends
 * such a transaction after 5 s and its locks go. Our transactions never wait that long between statements.
 */
const IDLE_IN_TRANSACTION_MS = 5_000;

/**
 * Parses int8 as a JS number instead of pg's default string: ids and epoch-ms
 * times stay far below 2^53, so nothing is lost. Set on this pool only, never
 * on the global `pg.types`, so other pg users in the process are untouched.
 */
const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID && format !== "binary"
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

/** What `openPostgres` returns: the query builder and the schema it works in. */
export interface PostgresConnection {
  db: Kysely<Database>;
  /** `current_schema()`: where unqualified tables (and kysely's bookkeeping) live. */
  schema: string;
}

/**
 * Connects a pool to `url` and checks the server answers. `schema` (tests,
 * benchmarks) is created when missing and put first in `search_path` of every
 * connection. `log` is kysely's query log (StoreHooks.queryLog). A `replica` (a read replica, read-only) is not
 * connected to here (nor its schema created: it arrives from the primary); its connections are named
 * `iot-central-read` in pg_stat_activity and give up connecting after 2 s.
 * @throws Error naming the database (user, host, port, name; never the
 *   password) when the URL is invalid or the server does not answer.
 */
export async function openPostgres(
  url: string,
  schema?: string,
  log?: Logger,
  role: "primary" | "replica" = "primary",
): Promise<PostgresConnection> {
  const where = describeDatabase(url);
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`invalid PostgreSQL schema name ${JSON.stringify(schema)}`);
  }
  const pool = new pg.Pool({
    connectionString: url,
    types: typeParsers,
    max: POOL_MAX,
    connectionTimeoutMillis: role === "primary" ? CONNECT_TIMEOUT_MS : REPLICA_CONNECT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    // Names our connections in pg_stat_activity, so an operator can tell (and a fault test terminate) them.
    application_name: role === "primary" ? APPLICATION_NAME : `${APPLICATION_NAME}-read`,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  // An idle connection the server dropped: the pool discards it and opens a
  // new one on demand; without a listener the 'error' event would end the process.
  pool.on("error", () => {});
  // A checked-out connection is the holder's to watch, and kysely does not: a server that terminates it between two
  // statements (a restart, pg_terminate_backend) made it emit an unhandled 'error' that ended the process. Its next
  // statement fails instead, and the pool discards it when it comes back.
  pool.on("connect", (client) => client.on("error", () => {}));
  const kysely = () =>
    new Kysely<Database>({
      dialect: schema === undefined ? new PostgresDialect({ pool }) : new OneSchemaPostgresDialect({ pool }, schema),
      plugins: [new CamelCasePlugin()],
      log,
    });
  // A replica that does not answer yet is no reason not to start: the read routing polls it and skips it meanwhile.
  if (role === "replica") return { db: kysely(), schema: schema ?? "public" };
  try {
    const client = await pool.connect();
    try {
      if (schema !== undefined) await client.query(`create schema if not exists ${schema}`);
      const { rows } = await client.query<{ schema: string | null }>("select current_schema() as schema");
      const current = rows[0]?.schema;
      if (current == null) throw new Error("no schema in search_path exists");
      return { db: kysely(), schema: current };
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw new Error(`cannot reach PostgreSQL database ${where}: ${describeError(error)}`, { cause: error });
  }
}

/** `"name" at user@host:port`, for messages: the URL without its password. */
export function describeDatabase(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error("invalid PostgreSQL database URL (not shown: it may hold a password)");
  }
  const user = parsed.username === "" ? "" : `${decodeURIComponent(parsed.username)}@`;
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, "")) || "(default)";
  return `"${name}" at ${user}${parsed.host || "localhost"}`;
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message !== "") return error.message;
  // Node's AggregateError for a host with several addresses has no message.
  const first = error instanceof AggregateError ? (error.errors[0] as Error | undefined) : undefined;
  return first?.message ?? (error as NodeJS.ErrnoException).code ?? error.name;
}
