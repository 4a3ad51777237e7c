import type { Logger } from "pino";
import type { RegistryClient } from "@iot/adapter-core";
import type { ClientTable } from "./client-table.js";
import type { RetainedTable } from "./retained-table.js";
import type { UnsubscribeRewriter } from "./codec/unsubscribe-rewriter.js";
import type { AedesSubscription } from "./puback-persistence.js";

/** Counters for health and tests; all since the adapter started. */
export interface MqttAdapterStats {
  /** Devices connected now. */
  readonly clients: number;
  readonly authFailures: number;
  /** Device publishes accepted and passed to the registry. */
  readonly uplinks: number;
  /** Uplinks the registry rejected or could not buffer. */
  readonly uplinkFailures: number;
  /** Publishes and subscriptions refused by topic rules, policies or the message size limit. */
  readonly denied: number;
  readonly downlinks: number;
}

/** Everything the aedes hooks and the downlink path share. */
export interface AdapterContext {
  readonly registry: RegistryClient;
  readonly log: Logger;
  /** IOT_POLICY_DEFAULT: the decision when no policy matches. */
  readonly defaultAllow: boolean;
  readonly clients: ClientTable;
  /** The retained messages of the devices connected here, sent at SUBSCRIBE (by aedes, from its store). */
  readonly retained: RetainedTable;
  readonly stats: { -readonly [K in keyof MqttAdapterStats]: number };
  /** How long a QoS 1 downlink waits for the device's PUBACK, ms. */
  readonly downlinkAckTimeoutMs: number;
  /** IOT_MAX_MESSAGE_SIZE: largest publish payload accepted, bytes. */
  readonly maxMessageSize: number;
  /** The UNSUBSCRIBE rewriter of each connection stream, released once its device is authenticated. */
  readonly unsubscribeRewriters: WeakMap<object, UnsubscribeRewriter>;
  /** Stored subscriptions aedes is about to restore, by aedes client id (persistent-session.ts). */
  readonly restoring: Map<string, AedesSubscription[]>;
  /** True once close() began: disconnects are then "adapter shutting down". */
  closing: boolean;
}
