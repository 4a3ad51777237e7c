import type { ColumnType, Generated } from "kysely";
import type {
  AppTemplatesTable,
  CertsTable,
  DataPointsTable,
  DataStreamPointsTable,
  DataStreamsTable,
  DevicePointValuesTable,
  DevicePoliciesTable,
  HistoryAlertsTable,
  MetricValuesTable,
  PointValuesTable,
  MetricsTable,
  PoliciesTable,
  ProductResourcesTable,
  ProxySubscriptionsTable,
} from "./schema-data-model.js";
import type { NorthboundEventsTable, WebhookDeliveriesTable, WebhooksTable } from "./schema-northbound.js";
import type {
  ControlLogsTable,
  FirmwaresTable,
  LoraMulticastTable,
  RetainedMessagesTable,
  SchedulesTable,
  TasksTable,
} from "./schema-commands.js";
import type {
  ClusterAdaptersTable,
  ClusterLeasesTable,
  ClusterMessagesTable,
  ClusterNodesTable,
  ClusterSessionsTable,
  LoginFailuresTable,
} from "./schema-cluster.js";
import type { MqttSessionsTable } from "./schema-sessions.js";

export type * from "./schema-data-model.js";
export type * from "./schema-northbound.js";
export type * from "./schema-cluster.js";
export type * from "./schema-commands.js";
export type * from "./schema-sessions.js";

/**
 * Table types as the domain code sees them. Columns are snake_case in the
 * database and camelCase here (kysely's CamelCasePlugin maps them).
 * Times are Unix epoch milliseconds (numbers) on both engines, so the API can
 * format them in any configured time zone. JSON columns hold JSON text.
 */
export interface Database {
  settings: SettingsTable;
  tenants: TenantsTable;
  users: UsersTable;
  products: ProductsTable;
  devices: DevicesTable;
  deviceEvents: DeviceEventsTable;
  uplinkCounts: UplinkCountsTable;
  connectLogs: ConnectLogsTable;
  controlLogs: ControlLogsTable;
  retainedMessages: RetainedMessagesTable;
  groups: GroupsTable;
  groupDevices: GroupDevicesTable;
  applications: ApplicationsTable;
  deviceCerts: DeviceCertsTable;
  dataPoints: DataPointsTable;
  dataStreams: DataStreamsTable;
  dataStreamPoints: DataStreamPointsTable;
  metrics: MetricsTable;
  productResources: ProductResourcesTable;
  appTemplates: AppTemplatesTable;
  devicePointValues: DevicePointValuesTable;
  certs: CertsTable;
  policies: PoliciesTable;
  devicePolicies: DevicePoliciesTable;
  proxySubscriptions: ProxySubscriptionsTable;
  historyAlerts: HistoryAlertsTable;
  pointValues: PointValuesTable;
  metricValues: MetricValuesTable;
  tasks: TasksTable;
  schedules: SchedulesTable;
  exportFiles: ExportFilesTable;
  northboundEvents: NorthboundEventsTable;
  webhooks: WebhooksTable;
  webhookDeliveries: WebhookDeliveriesTable;
  clusterNodes: ClusterNodesTable;
  clusterAdapters: ClusterAdaptersTable;
  clusterSessions: ClusterSessionsTable;
  clusterMessages: ClusterMessagesTable;
  clusterLeases: ClusterLeasesTable;
  loginFailures: LoginFailuresTable;
  mqttSessions: MqttSessionsTable;
  firmwares: FirmwaresTable;
  loraMulticast: LoraMulticastTable;
}

/** Service-wide key/value state (token signing secret, CA material, ...). */
export interface SettingsTable {
  key: string;
  value: string;
}

export interface TenantsTable {
  id: Generated<number>;
  tenantId: string;
  tenantName: string;
  enable: number;
  createAt: number;
  updateAt: number | null;
  /** Most devices (gateways included) the tenant may hold; 0 = unlimited. */
  maxDevices: Generated<number>;
  /** Most device sessions open at once on this node; 0 = unlimited. */
  maxConnections: Generated<number>;
  /** Uplink messages per second, per adapter process (token bucket); 0 = unlimited. */
  maxUplinkRate: Generated<number>;
}

export interface UsersTable {
  id: Generated<number>;
  tenantId: string;
  username: string;
  email: string | null;
  /** scrypt hash in the form `scrypt$N$r$p$salt$hash` (base64 parts). */
  passwordHash: string;
  /** admin | operator | viewer */
  role: string;
  /** 1 for the service administrator created on first start (may create tenants). */
  serviceAdmin: number;
  enable: number;
  createAt: number;
  updateAt: number | null;
  /** Bearer tokens of another generation are refused; a password or role change adds one (default 0). */
  tokenGeneration: ColumnType<number, number | undefined, number>;
  /** The `jti` of the one token kept across the last generation change (its holder changed its own password). */
  tokenKept: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ProductsTable {
  id: Generated<number>;
  tenantId: string;
  userIntId: number;
  productId: string;
  productName: string;
  description: string | null;
  cloudProtocol: number;
  createAt: number;
  updateAt: number | null;
}

/**
 * Devices, child devices and gateways share one table (gateways have
 * deviceType 2), so that every one of them authenticates the same way and
 * `gateway`/`parentDevice` reference one id space.
 */
export interface DevicesTable {
  id: Generated<number>;
  tenantId: string;
  userIntId: number;
  productIntId: number;
  deviceId: string;
  deviceName: string;
  /** Unique across the whole service: authentication must never be ambiguous. */
  deviceUsername: string;
  token: string;
  authType: number;
  blocked: number;
  /** Form 1 codes: 1 terminal, 2 gateway, 3 smartphone. */
  deviceType: number;
  upLinkSystem: number | null;
  gateway: number | null;
  parentDevice: number | null;
  carrier: number | null;
  physicalNetwork: number | null;
  /** 0 offline, 1 online, 2 sleeping. */
  deviceStatus: number;
  imei: string | null;
  imsi: string | null;
  autoSub: number | null;
  modBusIndex: number | null;
  latitude: number | null;
  longitude: number | null;
  location: string | null;
  lora: string | null;
  manufacturer: string | null;
  serialNumber: string | null;
  softVersion: string | null;
  hardwareVersion: string | null;
  description: string | null;
  deviceConsoleIp: string | null;
  deviceConsoleUsername: string | null;
  deviceConsolePort: number | null;
  metaData: string | null;
  scopes: string | null;
  /** Gateway-only attributes. */
  gatewayProtocol: number | null;
  upLinkNetwork: number | null;
  upLinkProtocol: number | null;
  mac: string | null;
  /** Modbus gateways: channel settings (JSON text), see docs/devices/modbus.md. */
  channel: string | null;
  /** LoRa: an OTAA device's DevEUI (upper case), unique service-wide; may be left out on insert. */
  loraDevEui: ColumnType<string | null, string | null | undefined, string | null>;
  /** LoRa: an ABP device's DevAddr, or an OTAA device's once joined (upper case), unique service-wide. */
  loraDevAddr: ColumnType<string | null, string | null | undefined, string | null>;
  /** LoRa network state (JSON text: LoraSessionState), apart from the `lora` settings users edit. */
  loraSession: ColumnType<string | null, string | null | undefined, string | null>;
  /** LwM2M: the bootstrap settings (JSON text: Lwm2mBootstrapSettings); null takes the deployment's defaults. */
  lwm2mBootstrap: ColumnType<string | null, string | null | undefined, string | null>;
  /** Filled while connected. */
  clientIp: string | null;
  connectedAt: number | null;
  keepAlive: number | null;
  createAt: number;
  updateAt: number | null;
}

/** Uplink messages. The hot table: written in batches by the UplinkWriter. */
export interface DeviceEventsTable {
  id: Generated<number>;
  tenantId: string;
  deviceIntId: number;
  /** The gateway that relayed it, when a gateway published for its child. */
  gatewayIntId: number | null;
  topic: string;
  payload: Uint8Array;
  ip: string | null;
  qos: number;
  /** When the adapter received it. */
  msgTime: number;
  createAt: number;
  /** `<adapter instance>:<seq>`, unique: replays are stored once. */
  msgKey: string;
  /** How it reached the service (JSON object text; LoRaWAN radio metadata), null when the adapter gave none. */
  metadata: string | null;
  /** The device's own identity of the message (MQTT packet id, …; see UplinkRecord.resendId), null when none. */
  resendId: string | null;
}

/**
 * Signed deltas whose sum per tenant is the count of its stored uplinks whose device exists (uplink-counts.ts):
 * the tenant's uplink list counts from here instead of from every uplink.
 */
export interface UplinkCountsTable {
  id: Generated<number>;
  tenantId: string;
  n: number;
}

export interface ConnectLogsTable {
  id: Generated<number>;
  tenantId: string | null;
  /** Null when the credentials named no known device. */
  deviceIntId: number | null;
  /** The deviceID claimed or resolved. */
  deviceId: string | null;
  deviceName: string | null;
  /** 0 offline, 1 online, 2 authentication failed. */
  connectStatus: number;
  ip: string | null;
  keepAlive: number | null;
  sessionId: string | null;
  reason: string | null;
  createAt: number;
  updateAt: number | null;
}

/** The CSV a device export task wrote (UTF-8 text), downloadable by its tenant until `expiresAt` (epoch ms). */
export interface ExportFilesTable {
  taskIntId: number;
  tenantId: string;
  content: string;
  expiresAt: number;
  createAt: number;
  /** 1 when the file holds device tokens and LoRa keys: only callers who may read secrets download it. */
  secrets: Generated<number>;
}

/** A named set of devices of one product, for group commands. */
export interface GroupsTable {
  id: Generated<number>;
  tenantId: string;
  userIntId: number;
  groupId: string;
  groupName: string;
  description: string | null;
  productIntId: number;
  createAt: number;
  updateAt: number | null;
}

export interface GroupDevicesTable {
  groupIntId: number;
  deviceIntId: number;
  createAt: number;
}

/** An application key: programs call the API with `Basic appID:appToken`. */
export interface ApplicationsTable {
  id: Generated<number>;
  tenantId: string;
  userIntId: number;
  /** Public half of the key, unique across the service. */
  appId: string;
  appName: string;
  /** SHA-256 (hex) of the token; the token itself is shown once, on create. */
  appTokenHash: string;
  /** admin | operator | viewer: what the key may do. */
  role: string;
  description: string | null;
  enable: number;
  /** Epoch ms after which the key no longer works; null = never. */
  expiresAt: number | null;
  createAt: number;
  updateAt: number | null;
}

/** Which certificates an authType 2 device may connect with. */
export interface DeviceCertsTable {
  deviceIntId: number;
  certIntId: number;
  createAt: number;
}
