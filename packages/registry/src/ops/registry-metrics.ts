import { counter, gauge, histogram, LATENCY_BUCKETS, type Gauge } from "@iot/config";
import type { Engine } from "../store/store.js";
import { DatabaseState, type DatabaseStateChange } from "./database-state.js";

/**
 * The central node's Prometheus metrics (scraped at `/metrics` on the API port; README "Metrics" lists them). Each is
 * counted in the one place every message of its kind passes: the gRPC Connect stream (uplinks), the uplink writer
 * (batches), the data pipeline, the command router, the session table and the store's query log (database errors).
 */

/** Label value of a cloudProtocol code: the adapter protocol's name (1 → "mqtt"), or the code itself. */
export function protocolLabel(code: number): string {
  return PROTOCOL_NAMES[code] ?? String(code);
}
const PROTOCOL_NAMES: Record<number, string> = {
  1: "mqtt",
  2: "coap",
  3: "lwm2m",
  4: "lora",
  5: "http",
  6: "websocket",
  7: "modbus",
};

/** Rows per committed uplink batch: 1 to 10,000 (IOT_UPLINK_BATCH_ROWS caps it). */
const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];

/** Uplinks the registry answered, by adapter protocol and outcome (stored, duplicate, rejected, failed). */
export const uplinksTotal = () =>
  counter(
    "iot_registry_uplinks_total",
    "Uplinks received from adapters, by protocol and outcome (stored, duplicate, rejected, failed)",
    ["protocol", "outcome"],
  );

/** Rows per uplink transaction of the batched writer. */
export const uplinkBatchRows = () =>
  histogram("iot_uplink_write_batch_rows", "Uplinks written per transaction by the uplink writer", [], BATCH_BUCKETS);

/** Duration of one uplink transaction, seconds. */
export const uplinkBatchSeconds = () =>
  histogram("iot_uplink_write_seconds", "Duration of one uplink write transaction, seconds", [], LATENCY_BUCKETS);

/** Uplinks queued in the writer, not yet in a committed batch. */
export const uplinkWriterQueue = () =>
  gauge("iot_uplink_writer_queue", "Uplinks waiting in the uplink writer for their batch to commit", []);

/** Statements the database refused, by engine and kind (constraint: a uniqueness or foreign key check; other). */
export const databaseErrors = () =>
  counter(
    "iot_database_errors_total",
    "Database statements that failed, by engine and kind (constraint violations the API may answer as 409 included)",
    ["engine", "kind"],
  );

/** Age of the newest uplink the pipeline went through, at the end of its batch, seconds (0 when caught up). */
export const pipelineLag = () =>
  gauge(
    "iot_pipeline_lag_seconds",
    "Seconds between an uplink's arrival at its adapter and the data pipeline's pass over it (last batch; 0 idle)",
    [],
  );

/** Uplinks the data pipeline went through. */
export const pipelineUplinks = () =>
  counter("iot_pipeline_uplinks_total", "Stored uplinks the data pipeline went through", []);

/** Data point values the data pipeline stored. */
export const pipelineValues = () =>
  counter("iot_pipeline_values_total", "Data point values the data pipeline stored", []);

/** Pipeline batches that failed (and are retried). */
export const pipelineFailures = () =>
  counter("iot_pipeline_batch_failures_total", "Data pipeline batches that failed and were retried", []);

/** Commands by outcome: issued (recorded), downlinked (handed to an adapter), delivered, sent, failed, expired. */
export const commandsTotal = () =>
  counter(
    "iot_commands_total",
    "Commands by outcome: issued, downlinked (handed to an adapter), delivered, sent (no ack needed), failed, expired",
    ["outcome"],
  );

/**
 * Creates every central metric now, so a scrape shows each family (with its HELP and TYPE) before its first event.
 * Idempotent.
 */
export function defineRegistryMetrics(): void {
  for (const make of [
    uplinksTotal,
    uplinkBatchRows,
    uplinkBatchSeconds,
    uplinkWriterQueue,
    databaseErrors,
    pipelineLag,
    pipelineUplinks,
    pipelineValues,
    pipelineFailures,
    commandsTotal,
  ])
    make();
}

/** Counts one failed statement from kysely's query log. */
export function countDatabaseError(engine: Engine, error: unknown): void {
  databaseErrors().inc({ engine, kind: isConstraintError(error) ? "constraint" : "other" });
}

/** True for uniqueness/foreign-key/check violations (SQLite SQLITE_CONSTRAINT*, PostgreSQL class 23). */
function isConstraintError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  return code.startsWith("SQLITE_CONSTRAINT") || /^23\d{3}$/.test(code);
}

/**
 * A kysely `log` option counting every failed statement of the engine and following this connection's database state
 * (`onState` told when it goes down and up again).
 */
export function databaseErrorLog(engine: Engine, onState?: (change: DatabaseStateChange) => void) {
  const state = new DatabaseState(engine, onState);
  return (event: { level: "query" | "error"; error?: unknown; query?: { sql: string } }) => {
    if (event.level === "error") countDatabaseError(engine, event.error);
    state.note(event.query?.sql ?? "", event.level === "error" ? event.error : undefined);
  };
}

/** What a session table tells the gauges: its attached adapters with their session counts. */
export interface SessionCounts {
  snapshot(): ReadonlyArray<{ protocol: number; sessions: number }>;
}

const tables = new Set<WeakRef<SessionCounts>>();

/** Sets a per-protocol gauge from every tracked table: `of` picks what one attached adapter adds. */
function countTables(g: Gauge<"protocol">, of: (a: { sessions: number }) => number): void {
  g.reset();
  for (const ref of tables) {
    const t = ref.deref();
    if (!t) tables.delete(ref);
    else for (const a of t.snapshot()) g.inc({ protocol: protocolLabel(a.protocol) }, of(a));
  }
}

/**
 * Makes the table's adapters and sessions part of `iot_registry_adapters` and `iot_registry_sessions`, read at each
 * scrape (held weakly: a dropped table stops counting).
 */
export function trackSessions(table: SessionCounts): void {
  tables.add(new WeakRef(table));
  gauge("iot_registry_adapters", "Adapter instances attached to this node, by protocol", ["protocol"], function () {
    countTables(this, () => 1);
  });
  gauge("iot_registry_sessions", "Device sessions held by attached adapters, by protocol", ["protocol"], function () {
    countTables(this, (a) => a.sessions);
  });
}
