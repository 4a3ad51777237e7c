/**
 * The settings of the gRPC registry client, each with its default and unit: most come from the adapter's environment
 * (see registryClientFor), the rest are there for tests and benchmarks.
 */
import type { BackoffOptions } from "@iot/config";
import type { Logger } from "pino";
import type { ProtocolName } from "./registry-client.js";

/** Settings of the gRPC registry client; times in ms. */
export interface GrpcRegistryClientOptions {
  /**
   * The central node's gRPC address, `host:port` (an `https://` prefix selects TLS), or several nodes over one
   * database: the client uses one at a time and moves to the next when its stream fails (see RegistryEndpoints).
   */
  readonly address: string | readonly string[];
  readonly protocol: ProtocolName;
  readonly logger: Logger;
  /** Most unacknowledged uplinks kept (default 10000). */
  readonly bufferLimit?: number;
  /** IOT_MAX_MESSAGE_SIZE: larger uplink payloads are refused (MESSAGE_TOO_LARGE) before being buffered, bytes. */
  readonly maxMessageSize?: number;
  /** Deadline of one Authenticate(Batch) call once sent, ms (default 10000); waiting for a slot does not count. */
  readonly authTimeoutMs?: number;
  /**
   * Most AuthenticateBatch calls in flight at once (default 4): devices that arrive meanwhile wait in arrival order
   * and go out together in the next call (see CallBatcher); while one is in flight, another leaves only with at least
   * a quarter of `authBatchMax` devices.
   */
  readonly authConcurrency?: number;
  /** Most devices checked in one AuthenticateBatch call (default 200, at most the registry's 1000). */
  readonly authBatchMax?: number;
  /**
   * Least time between two AuthenticateBatch calls that leave because none is in flight, ms (default 4): a device
   * arriving after a quiet spell goes at once, but in a connect storm the answers came back so fast that the calls
   * carried a median of 1–2 devices, each call costing both nodes an HTTP/2 stream and four lookups.
   */
  readonly authGapMs?: number;
  /**
   * IOT_ADAPTER_AUTH_QUEUE_LIMIT: most devices waiting for their turn to be checked (default 5000, about a second of
   * the central node's checks in a connect storm). A device arriving while the queue is this long is answered
   * UNAVAILABLE at once (the protocol's "server unavailable": retry later) without anything built or sent for it, and
   * counted as an authentication with outcome `queue_full`: a restarted adapter sheds the part of its reconnect storm
   * it cannot check soon instead of holding every connection until the devices give up.
   */
  readonly authQueueLimit?: number;
  /** How long close() waits for pending acks (default 2000). */
  readonly closeDrainMs?: number;
  /**
   * Reconnect delays (default 100 ms doubling to 2 s, with jitter; with several nodes, per round of them). The
   * steps start over once a link has stayed up 2 s (see RegistryOutage).
   */
  readonly backoff?: BackoffOptions;
  /**
   * With several addresses: how long a new stream may wait for the node's HelloAck before the client gives up on that
   * node and tries the next (a node that accepts connections but is stuck), ms (default 3000).
   */
  readonly helloTimeoutMs?: number;
  /** Adapter version reported in Hello. */
  readonly version?: string;
  /** IOT_REGISTRY_TOKEN: sent with every call when set. */
  readonly token?: string | undefined;
}
