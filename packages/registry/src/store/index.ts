/**
 * The registry's storage layer: one Store interface over SQLite or PostgreSQL. Opened with the registry's hooks by
 * `openRegistryStore` (open-registry-store.ts), so `openStore` itself is not exported.
 */
export type { Engine, Store, StoreOptions, UplinkOutcome, UplinkRecord, UplinkWriter, UplinkWritten } from "./store.js";
export type { StoreHooks, StoredUplinkRef, UplinkEvents, UplinkWriterMetrics } from "./store-hooks.js";
export type * from "./schema.js";
export { DEFAULT_BATCH_MAX_DELAY_MS, DEFAULT_BATCH_MAX_ROWS } from "./uplink-writer.js";
export { uplinkMetadata } from "./uplink-metadata.js";
export { SQLITE_FILE_NAME } from "./sqlite.js";
export {
  RetentionSweeper,
  DEFAULT_RETENTION_BATCH_ROWS,
  DEFAULT_RETENTION_INTERVAL_MS,
  type RetentionCounts,
  type RetentionOptions,
} from "./retention.js";
export { HistoryPartitionKeeper, type HistoryPartitionKeeperOptions } from "./history-partition-keeper.js";
export { DEFAULT_RECONCILE_INTERVAL_MS, UplinkCountFolder, recountUplinks } from "./uplink-counts.js";
export { lockSqliteDataDir, SQLITE_LOCK_FILE_NAME, type SqliteNodeLock } from "./sqlite-lock.js";
export type { ReadReplicas, ReplicaStatus } from "./read-replicas.js";
