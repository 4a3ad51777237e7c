import type { Kysely } from "kysely";
import type { Database } from "./schema.js";
import type { BatchDurability } from "./batch-durability.js";
import type { WriteLock } from "./write-lock.js";
import type { StoreHooks } from "./store-hooks.js";
import type { ReadReplicaOptions, ReadReplicas } from "./read-replicas.js";

/** Which database engine a Store runs on. */
export type Engine = "sqlite" | "postgres";

/**
 * The storage boundary: a typed query builder over one engine, with the
 * schema migrated, plus the batched uplink writer. Domain code only writes
 * portable kysely queries against `db`; anything engine-specific lives in the
 * engine's own file.
 */
export interface Store {
  readonly engine: Engine;
  readonly db: Kysely<Database>;
  readonly uplinks: UplinkWriter;
  /**
   * How a batch written with group commit becomes durable (uplinks, control logs, delivery reports): one shared, so
   * SQLite syncs its WAL once for all the batches committed meanwhile.
   */
  readonly durability: BatchDurability;
  /**
   * SQLite: the lock every write of this store takes (LockedSqliteDialect), for another thread's connection to the
   * same file to take as well. Undefined on PostgreSQL.
   */
  readonly writeLock?: WriteLock | undefined;
  /**
   * PostgreSQL with read replicas (StoreOptions.reads): routes the REST API's list and history reads to them, with
   * read-your-writes per caller. Undefined otherwise: every read uses `db`.
   */
  readonly reads?: ReadReplicas | undefined;
  /** Flushes pending uplinks and closes connections. */
  close(): Promise<void>;
}

/** One uplink to store, as the gRPC layer hands it over. */
export interface UplinkRecord {
  /** `<adapter instance id>:<seq>`: the de-duplication key. */
  msgKey: string;
  tenantId: string;
  deviceIntId: number;
  gatewayIntId: number | null;
  topic: string;
  payload: Uint8Array;
  ip: string | null;
  qos: number;
  /** Epoch ms when the adapter received it. */
  msgTime: number;
  /** JSON object text of how it reached the service (LoRaWAN radio metadata); absent or null when none. */
  metadata?: string | null;
  /**
   * The device's own identity of the message, which a resend repeats ("mqtt:<packet id>", "coap:<message id>:<token>",
   * "http:<Idempotency-Key>"); absent or null when the protocol has none.
   */
  resendId?: string | null;
  /**
   * It may be a resend of an uplink stored through an adapter process that died before acking it: stored only when
   * the device has no recent uplink with the same resendId, topic and payload (see `resend-match.ts`).
   */
  maybeResend?: boolean;
  /**
   * The command answer key it carries (MQTT 5.0 correlation data on its topic, `answerKey` of the router), absent or
   * null when none: once stored, it settles the command waiting for that answer (StoreHooks.uplinkAnswers).
   */
  answerKey?: string | null;
}

/** What became of one uplink: stored now, or already stored before (a replay). */
export type UplinkOutcome = "stored" | "duplicate";

/**
 * Called once when an uplink's write settles: `(undefined, outcome)` once committed, `(error)` when it failed. A
 * callback rather than a promise: a promise per uplink, its resolvers and the caller's `then` and `catch` closures
 * were a share of the central node's time and garbage at tens of thousands of uplinks a second.
 */
export type UplinkWritten = (error: Error | undefined, outcome?: UplinkOutcome) => void;

/**
 * Writes uplinks in batches: many rows in one transaction, flushed when the
 * batch is full or a few milliseconds after its first row, whichever is first.
 * A write's promise resolves only after its transaction has committed.
 */
export interface UplinkWriter {
  write(record: UplinkRecord): Promise<UplinkOutcome>;
  /**
   * `write` with a callback instead of a promise, for the gRPC stream's hot path: `written` is called once, never
   * before this returns, with no error and the outcome once the batch is committed (and synced), or with the error
   * `write` would have rejected with.
   */
  writeThen(record: UplinkRecord, written: UplinkWritten): void;
  /** Commits whatever is pending now. */
  flush(): Promise<void>;
  /**
   * Calls `listener` right after each commit that stored something, with the batch's records and the ids of those
   * stored now (a replay has none). Answers the function that stops the calls.
   */
  onStored(listener: StoredListener): () => void;
}

/** See UplinkWriter.onStored: `ids` maps the msgKey of each record stored now to its device_events id. */
export type StoredListener = (records: readonly UplinkRecord[], ids: ReadonlyMap<string, number>) => void;

/** How to open a store. */
export interface StoreOptions {
  /** `postgres://…` selects PostgreSQL; undefined selects SQLite. */
  databaseUrl?: string | undefined;
  /** Folder of the SQLite file (`iot.db`); created when missing. */
  dataDir: string;
  /** Most rows in one uplink transaction. Default 500. */
  batchMaxRows?: number;
  /** Longest wait, in ms, between an uplink's arrival and its batch's commit. Default 0 (group commit, no timer). */
  batchMaxDelayMs?: number;
  /** SQLite only: most resend ids the resend lookup keeps in memory (see RecentResendIds). Default 200,000. */
  recentResendIds?: number;
  /**
   * PostgreSQL only, for tests and benchmarks: the schema to work in (first
   * in `search_path`, created when missing), so runs sharing one database
   * stay apart. Lowercase letters, digits and `_`. Default: the server's.
   */
  pgSchema?: string | undefined;
  /** SQLite only: told when a WAL checkpoint fails (see CheckpointedWal). Default: printed on stderr. */
  onCheckpointError?: (error: Error) => void;
  /**
   * PostgreSQL only: days of history one partition of the history tables holds (IOT_HISTORY_PARTITION_DAYS,
   * history-partitions.ts). Default 7.
   */
  historyPartitionDays?: number | undefined;
  /**
   * PostgreSQL, at the first opening after migration 0034: told after each batch of history rows copied into their
   * partitions, with the table and its rows copied so far by this opening (partition-move.ts).
   */
  onPartitionMove?: ((table: string, moved: number) => void) | undefined;
  /**
   * PostgreSQL only: streaming replicas of the database (`postgres://` URLs) for list and history reads, and how far
   * behind one may be (ReadReplicaOptions). SQLite refuses them.
   */
  reads?: (ReadReplicaOptions & { urls: readonly string[] }) | undefined;
  /** What the store calls outside its layer: query log, feed events, metrics (see StoreHooks). Default: none. */
  hooks?: StoreHooks | undefined;
}
