export * from "./errors.js";
export type { Caller, Role } from "./domain/caller.js";
export type { Page, ListResult } from "./domain/list.js";
export { MAX_PAGE } from "./domain/list.js";
export * from "./domain/products.js";
export { createDevice, deleteDevices, getDevice, getDeviceByDeviceId, type Device } from "./domain/devices.js";
export * from "./domain/device-input.js";
export * from "./domain/create-devices.js";
export * from "./domain/update-device.js";
export * from "./domain/list-devices.js";
export * from "./domain/gateways.js";
export { LORA_REGIONS } from "./domain/device-rules.js";
export * from "./domain/logs.js";
export * from "./domain/users.js";
export { tokenClaimsOf, type TokenClaims } from "./auth/token-claims.js";
export { bootstrapAdmin, tokenSecret, type BootstrapResult } from "./domain/bootstrap.js";
export { authenticateDevice } from "./domain/device-auth.js";
export { DEFAULT_DOWNLINK_TOPIC, type AuthOutcome } from "./domain/auth-outcome.js";
export type { DeviceCredentials } from "./domain/device-credentials.js";
export { CONNECT_STATUS, markStaleOffline } from "./domain/connectivity.js";
export { DataPipeline } from "./pipeline/data-pipeline.js";
export type { PipelineStats } from "./pipeline/pipeline-observer.js";
export {
  PIPELINE_WORKER_ROLE,
  PipelineThread,
  runPipelineWorker,
  type PipelineWorkerData,
} from "./pipeline/pipeline-thread.js";
export { ConnectivityWriter, type SessionEvent } from "./sessions/connectivity-writer.js";
export { SessionTable, type AdapterLink, type LiveSession, type DownlinkCommand } from "./sessions/session-table.js";
export { LiveUpdates } from "./sessions/live-updates.js";
export { MqttSessionSweeper } from "./sessions/mqtt-session-sweeper.js";
export { ModbusConfigPush } from "./modbus/config-push.js";
export { MODBUS_CONFIG_TOPIC, type ChannelConfig } from "./modbus/channel-config.js";
export { CommandRouter, type DeviceCommand, type GroupCommand } from "./router/commands.js";
export type { CommandProperties } from "./router/command-properties.js";
export { PUBLISH_STATUS, type PublishStatus } from "./router/publish-status.js";
export type { CommandRouterOptions } from "./router/command-router-options.js";
export { groupOfCommand } from "./router/group-commands.js";
export * from "./domain/tasks.js";
export * from "./domain/firmwares.js";
export * from "./domain/firmware-update.js";
export { firmwareDownlinks } from "./lwm2m/firmware-payload.js";
export { LWM2M_SECURITY_MODES } from "./lwm2m/lwm2m-bootstrap.js";
export {
  startGrpcServer,
  stopGrpcServer,
  registryHandlers,
  type RegistryServiceDeps,
} from "./grpc/registry-service.js";
export type { ConnectDeps } from "./grpc/connect-stream.js";
export * from "./store/index.js";
export { openRegistryStore, registryStoreHooks, type RegistryStoreOptions } from "./open-registry-store.js";
export { hashPassword, verifyPassword } from "./auth/passwords.js";
export * from "./domain/groups.js";
export * from "./lora/lora-multicast.js";
export * from "./domain/applications.js";
export * from "./domain/tenants.js";
export { FailureLimiter, type FailureLimiterOptions } from "./auth/rate-limit.js";
export { databaseLoginLimiter, memoryLoginLimiter, type LoginLimiter } from "./auth/shared-rate-limit.js";
export { Cluster, type ClusterDeps } from "./cluster/cluster.js";
export { JobLeases, type JobFactory, type RunningJob } from "./cluster/job-leases.js";
export { listNodes, HEARTBEAT_MS, NODE_EXPIRY_MS, type ClusterNode } from "./cluster/node-heartbeat.js";
export { nodeReaper, reapGoneNodes } from "./cluster/node-reaper.js";
export { withStartupLock } from "./store/startup-lock.js";
export { describeCluster, type ClusterAdapterView, type ClusterNodeView } from "./cluster/cluster-view.js";
export * from "./domain/policies.js";
export * from "./domain/policy-bindings.js";
export * from "./domain/subscriptions.js";
export * from "./domain/retained.js";
export * from "./domain/alerts.js";
export { topicFilterProblem, topicMatches, MAX_TOPIC_FILTER_BYTES } from "./domain/topic-filter.js";
export * from "./domain/certs.js";
export {
  serviceCa,
  loadOrCreateCa,
  issueClientCert,
  certFingerprint,
  CERT_VALIDITY_MS,
  type ServiceCa,
  type IssuedCert,
} from "./certs/ca.js";
export * from "./domain/data-points.js";
export * from "./domain/data-streams.js";
export * from "./pipeline/expression.js";
export * from "./domain/metrics.js";
export * from "./domain/product-resources.js";
export * from "./domain/app-templates.js";
export * from "./domain/device-data.js";
export { GatewayRelay, type RelayTarget } from "./router/gateway-relay.js";
export * from "./pipeline/decode/index.js";
export * from "./domain/schedules.js";
export {
  SCHEDULE_TYPE,
  MINUTE_MS,
  ONCE_GRACE_MS,
  MAX_INTERVAL_MINUTES,
  cronProblem,
  planRun,
  type RunPlan,
} from "./domain/schedule-times.js";
export { ScheduleRunner, DEFAULT_SCHEDULE_TICK_MS, type ScheduleRunnerOptions } from "./router/schedule-runner.js";
export { checkCommand, type CommandTarget } from "./router/command-check.js";
export * from "./domain/export-files.js";
export { pingDatabase, PING_TIMEOUT_MS, type DatabaseHealth } from "./ops/database-ping.js";
export { defineRegistryMetrics, protocolLabel } from "./ops/registry-metrics.js";
export { trackReplicas } from "./ops/replica-metrics.js";
export type { DatabaseStateChange } from "./ops/database-state.js";
export * from "./northbound/index.js";
