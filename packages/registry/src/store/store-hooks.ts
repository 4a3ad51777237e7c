import type { Kysely, Logger } from "kysely";
import type { Database } from "./schema.js";
import type { Engine } from "./store.js";

/**
 * What the store calls outside its own layer, handed in by whoever opens it (`openRegistryStore` wires the
 * registry's): the store imports nothing of the layers above it, so each is given here. A store opened without them
 * counts nothing and appends no feed events (store tests that need neither).
 */
export interface StoreHooks {
  /** kysely's query log for a connection the store opens on `engine`: the registry counts failed statements. */
  queryLog?: ((engine: Engine) => Logger) | undefined;
  /** The northbound feed's part of each uplink batch. */
  uplinkEvents?: UplinkEvents | undefined;
  /** The uplink writer's metrics. */
  uplinkMetrics?: UplinkWriterMetrics | undefined;
  /** Settles the commands that uplinks answer (request/response), in their batch's transaction. */
  uplinkAnswers?: UplinkAnswers | undefined;
}

/** An uplink a batch stored now that answers a command (its `answerKey`). */
export interface UplinkAnswer {
  deviceIntId: number;
  answerKey: string;
  payload: Uint8Array;
}

/** How the uplink writer has the commands answered by a batch's uplinks settled. */
export interface UplinkAnswers {
  /**
   * Settles, inside the batch's transaction `trx`, the command each answer answers (if one still waits for it), so
   * the command is settled exactly when its answer is stored; `now` is the batch's epoch-ms time.
   */
  settle(trx: Kysely<Database>, answers: readonly UplinkAnswer[], now: number): Promise<void>;
}

/** One uplink a batch stored now: whose it is and its device_events id. */
export interface StoredUplinkRef {
  tenantId: string;
  uplinkId: number;
}

/** How the uplink writer reports stored uplinks to the northbound feed. */
export interface UplinkEvents {
  /**
   * Appends the `uplink` events of the uplinks a batch stored now (maybe none), inside the batch's transaction `trx`,
   * so an event exists exactly when its uplink does; `now` is the batch's epoch-ms time.
   */
  append(trx: Kysely<Database>, stored: readonly StoredUplinkRef[], now: number): Promise<void>;
  /** A batch that stored something has committed: its events may be read. */
  committed(): void;
}

/** What the uplink writer measures, called on its hot path (`enqueued` once per uplink). */
export interface UplinkWriterMetrics {
  /** One uplink joined the queue of writes not in a committed batch yet. */
  enqueued(): void;
  /** `count` uplinks left that queue for a batch. */
  dequeued(count: number): void;
  /** A batch of `rows` uplinks starts its transaction; answers the function called once it settled (synced, failed). */
  batch(rows: number): () => void;
}

/** Metrics of a store opened without any: measures nothing. */
export const NO_UPLINK_METRICS: UplinkWriterMetrics = {
  enqueued: () => {},
  dequeued: () => {},
  batch: () => () => {},
};
