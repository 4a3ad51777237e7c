import type { BatchDurability } from "../store/batch-durability.js";

/** Timing of the queue. */
export interface CommandRouterOptions {
  /** How often expired commands are marked failed, ms (default: a quarter of the TTL, within 0.5–5 s). */
  sweepIntervalMs?: number;
  /**
   * How long a command handed to an adapter may wait for its answer past its expiry, ms (default 60 s: the adapter's
   * own PUBACK timeout is 30 s).
   */
  inFlightGraceMs?: number;
  /** Told of a sweep that failed (the next one tries again). */
  onError?: (err: unknown) => void;
  /** How control logs and delivery reports become durable (the store's; default: at COMMIT). */
  durability?: BatchDurability;
  /**
   * Least time between two syncs of new commands, and of delivery reports, ms (default `COMMAND_SYNC_EVERY_MS`): a
   * command is sent on at its commit, and only its REST answer waits for its sync (see `GroupCommit`'s
   * `syncEveryMs`). 0 syncs after every batch.
   */
  syncEveryMs?: number;
  /**
   * Least time between the starts of two transactions of new commands, ms (default `COMMAND_COMMIT_EVERY_MS`; see
   * `GroupCommit`'s `commitEveryMs`): under load a command waits at most this long for its transaction. 0: none.
   */
  commitEveryMs?: number;
  /**
   * The payload a stored command goes to its adapter with (default: as stored): a firmware update command gets its
   * package here (lwm2m/firmware-payload.ts), which its control log only names.
   */
  downlinkPayload?: (payload: string) => string;
}

/**
 * Default least time between two transactions of new device commands, ms: at 1,000 device_publish calls a second
 * most calls arrived alone in their turn of the event loop and each was a transaction of its own; 2 ms makes them
 * two or three to a transaction. A command after a quiet time is committed at once.
 */
export const COMMAND_COMMIT_EVERY_MS = 2;

/**
 * Default least time between two syncs of the command path, ms. At 1,000 device_publish calls a second most calls are
 * a batch of their own, and a sync after each (back to back, 1–3 ms apiece) cost the central node more CPU than the
 * rest of the command's storage; a command after a quiet time still syncs at once.
 */
export const COMMAND_SYNC_EVERY_MS = 4;

/** The other nodes, for commands whose device is not connected here (see cluster/cluster.ts). */
export interface RemoteCommands {
  /** Asks the nodes holding these devices (or gateways) to send their queued commands. */
  deliver(deviceIntIds: number[]): void;
  /** Of these devices, those holding a session on another node. */
  heldElsewhere(deviceIntIds: readonly number[]): Promise<Set<number>>;
  /** This node handed the command to an adapter: recorded (batched) for the TTL sweep, whichever node runs it. */
  handedOver(controlLogId: number, at: number): void;
}
