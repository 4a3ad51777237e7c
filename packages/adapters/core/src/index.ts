export * from "./registry-client.js";
export * from "./lora-types.js";
export { AdapterError, type AdapterErrorCode } from "./errors.js";
export { retryAfterSeconds } from "./retry-after.js";
export { GrpcRegistryClient, newInstanceId } from "./grpc-registry-client.js";
export { type GrpcRegistryClientOptions } from "./grpc-registry-client-options.js";
export { createGrpcRegistryClient, registryClientFor } from "./registry-client-for.js";
export { FakeRegistryClient } from "./fake-registry-client.js";
export type { FakeDevice, FakeSessionEvent, RecordedUplink } from "./fake-registry-types.js";
export { UplinkBuffer, uplinkPromise, type PendingUplink } from "./uplink-buffer.js";
export { TenantRateLimiter, TokenBucket } from "./tenant-rate-limiter.js";
export { LiveSessions, type LiveSession } from "./live-sessions.js";
export { Backoff, type BackoffOptions } from "@iot/config";
export { dispatchDownlink } from "./downlink-dispatch.js";
export { isAllowed, topicMatches, filtersOverlap, filterCovers, type PolicyAction } from "./policy.js";
export {
  publishTopicProblem,
  filterProblem,
  mountTopic,
  unmountTopic,
  MAX_TOPIC_BYTES,
  MAX_TOPIC_LEVELS,
} from "./topics.js";
export {
  adapterSettings,
  DEFAULT_AUTH_QUEUE_LIMIT,
  DEFAULT_MAX_MESSAGE_SIZE,
  LOG_LEVELS,
  MAX_MESSAGE_SIZE_LIMIT,
  type AdapterConfig,
} from "./config.js";
export { uplinkSizeProblem } from "./uplink-size.js";
export { createAdapterLogger } from "./logger.js";
export { DeviceLeases, type DeviceLeasesOptions } from "./device-leases.js";
export { Lease, type DownlinkConsumer, type LeaseRefusal } from "./lease.js";
export { announcedHost } from "./announce.js";
export { adapterMetrics, type AdapterMetrics } from "./adapter-metrics.js";
export {
  adapterMetricsSettings,
  serveAdapterMetrics,
  METRICS_PATH,
  type AdapterMetricsConfig,
  type MetricsListener,
} from "./metrics-server.js";
export { Fifo } from "./fifo.js";
