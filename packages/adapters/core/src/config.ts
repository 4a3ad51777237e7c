import { integer, list, oneOf, text, type ConfigOf } from "@iot/config";

/** Log levels accepted by IOT_LOG_LEVEL (pino's). */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/**
 * Ceiling of IOT_MAX_MESSAGE_SIZE, bytes: an uplink of this size plus its envelope still fits the registry link's
 * gRPC message limit (4 MiB).
 */
export const MAX_MESSAGE_SIZE_LIMIT = 4_000_000;

/** Default of IOT_MAX_MESSAGE_SIZE, bytes (256 KiB). */
export const DEFAULT_MAX_MESSAGE_SIZE = 262_144;

/** Default of IOT_ADAPTER_AUTH_QUEUE_LIMIT, devices. */
export const DEFAULT_AUTH_QUEUE_LIMIT = 5000;

/**
 * Settings every protocol adapter reads; an adapter spreads these into its
 * own settings object so one readConfig call covers both.
 */
export const adapterSettings = {
  registryUrls: list(
    "IOT_REGISTRY_URL",
    ["127.0.0.1:50051"],
    "gRPC address (host:port) of the central node's registry; several nodes over one PostgreSQL, comma-separated, are used one at a time, moving to the next when one fails",
  ),
  registryToken: text(
    "IOT_REGISTRY_TOKEN",
    undefined,
    "shared secret presented to the central node's gRPC endpoint (when it asks for one)",
  ),
  bufferLimit: integer(
    "IOT_ADAPTER_BUFFER_LIMIT",
    10_000,
    "most uplinks kept while waiting for the registry's ack (count)",
    1,
    10_000_000,
  ),
  authQueueLimit: integer(
    "IOT_ADAPTER_AUTH_QUEUE_LIMIT",
    DEFAULT_AUTH_QUEUE_LIMIT,
    "most connecting devices waiting for the central node's check (count); more are refused at once as server unavailable (MQTT CONNACK 3), to retry later",
    1,
    10_000_000,
  ),
  maxMessageSize: integer(
    "IOT_MAX_MESSAGE_SIZE",
    DEFAULT_MAX_MESSAGE_SIZE,
    "largest device message (uplink payload) accepted by every adapter, bytes; larger ones are refused as announced",
    1,
    MAX_MESSAGE_SIZE_LIMIT,
  ),
  logLevel: oneOf("IOT_LOG_LEVEL", "info", "log level (pino), logs go to stderr", LOG_LEVELS),
  policyDefault: oneOf("IOT_POLICY_DEFAULT", "allow", "decision for a topic no device policy matches", [
    "allow",
    "deny",
  ]),
};

/** The typed values of adapterSettings. */
export type AdapterConfig = ConfigOf<typeof adapterSettings>;
