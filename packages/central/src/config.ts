import {
  flag,
  integer,
  metricsTokenSetting,
  oneOf,
  port,
  readConfig,
  text,
  type ConfigOf,
  type Setting,
} from "@iot/config";

/** A node id: it names the node's NOTIFY channel, so PostgreSQL's identifier limits apply. */
const nodeIdSetting: Setting<string | undefined> = {
  env: "IOT_NODE_ID",
  fallback: undefined,
  doc: "This central node's id among several on one PostgreSQL database (1–40 of A-Z a-z 0-9 _ -); unset: generated.",
  parse(raw) {
    const v = raw.trim();
    if (!/^[A-Za-z0-9_-]{1,40}$/.test(v)) throw new Error("must be 1 to 40 letters, digits, _ or -");
    return v;
  },
};

/**
 * PostgreSQL streaming replicas for the REST API's list and history reads. Checked here without echoing the value
 * (a URL may hold a password): the one-line error names the setting and the item.
 */
const databaseReadUrlsSetting: Setting<readonly string[] | undefined> = {
  env: "IOT_DATABASE_READ_URL",
  fallback: undefined,
  secret: true,
  doc: "Comma-separated postgres:// URLs of streaming replicas of IOT_DATABASE_URL that serve REST list and history reads (docs/scale-out.md); unset: all reads on the primary.",
  parse(raw) {
    const urls = raw.split(",").map((u) => u.trim());
    urls.forEach((u, i) => {
      let ok = /^postgres(ql)?:\/\//i.test(u);
      try {
        new URL(u);
      } catch {
        ok = false;
      }
      if (!ok) throw new Error(`item ${i + 1} of ${urls.length} is not a postgres:// URL`);
    });
    return urls;
  },
};

/** Every setting of the central node (registry + gRPC + REST API), read once at start. */
export const centralSettings = {
  dataDir: text("IOT_DATA_DIR", "./data", "Folder of the SQLite database and other state."),
  databaseUrl: text(
    "IOT_DATABASE_URL",
    undefined,
    "A postgres:// URL selects PostgreSQL; unset uses SQLite in IOT_DATA_DIR.",
  ),
  databaseReadUrls: databaseReadUrlsSetting,
  databaseReadMaxLag: integer(
    "IOT_DATABASE_READ_MAX_LAG",
    30,
    "A read replica further behind the primary than this is skipped (its reads go to the primary), seconds.",
    1,
    86_400,
  ),
  nodeId: nodeIdSetting,
  apiHost: text("IOT_API_HOST", "0.0.0.0", "Address the REST API listens on."),
  apiPort: port("IOT_API_PORT", 8080, "REST API port (HTTP)."),
  grpcHost: text(
    "IOT_GRPC_HOST",
    "127.0.0.1",
    "Address the adapters' gRPC endpoint listens on (0.0.0.0 for adapters on other hosts).",
  ),
  grpcPort: port("IOT_GRPC_PORT", 50051, "gRPC port the adapters connect to."),
  adapterToken: text(
    "IOT_REGISTRY_TOKEN",
    undefined,
    "Shared secret every adapter must present on gRPC; required when IOT_GRPC_HOST is not a loopback address.",
  ),
  adminUsername: text("IOT_ADMIN_USERNAME", "admin", "Service administrator created on first start."),
  adminPassword: text("IOT_ADMIN_PASSWORD", undefined, "Its password; unset generates one and prints it once."),
  adminTenantName: text("IOT_ADMIN_TENANT_NAME", "Default", "Name of the first tenant."),
  apiForm: oneOf("IOT_API_FORM", "1", "Record form of the whole API: 1 or 2.", ["1", "2"]),
  tokenSecret: text(
    "IOT_TOKEN_SECRET",
    undefined,
    "Secret that signs API tokens; unset generates one and keeps it in the database.",
  ),
  tokenTtl: integer("IOT_TOKEN_TTL", 86_400, "Lifetime of an API token, seconds.", 60, 31_536_000),
  loginMaxFailures: integer(
    "IOT_LOGIN_MAX_FAILURES",
    5,
    "Failed logins from one client address or for one username before further logins answer 429.",
    1,
    1_000,
  ),
  loginWindow: integer(
    "IOT_LOGIN_WINDOW",
    300,
    "Window in which failed logins are counted, seconds; a refusal lasts until the failures leave it.",
    1,
    86_400,
  ),
  commandTtl: integer("IOT_COMMAND_TTL", 3_600, "How long a command stays deliverable, seconds.", 1, 2_592_000),
  sessionGrace: integer(
    "IOT_SESSION_GRACE",
    30,
    "How long a device stays online while its adapter reconnects, seconds.",
    1,
    3_600,
  ),
  uplinkBatchRows: integer("IOT_UPLINK_BATCH_ROWS", 500, "Most uplinks stored in one transaction.", 1, 10_000),
  uplinkBatchDelayMs: integer(
    "IOT_UPLINK_BATCH_DELAY_MS",
    0,
    "Longest wait before an uplink's batch commits, ms (0: at once; batches still grow while a commit runs).",
    0,
    1_000,
  ),
  retentionDays: integer(
    "IOT_RETENTION_DAYS",
    90,
    "Days events, values, connect logs and settled control logs are kept; 0 keeps them forever.",
    0,
    36_500,
  ),
  historyPartitionDays: integer(
    "IOT_HISTORY_PARTITION_DAYS",
    7,
    "PostgreSQL: days of history (uplinks, values, connect and control logs, outbox) one table partition holds.",
    1,
    366,
  ),
  exportTtl: integer(
    "IOT_EXPORT_TTL",
    86_400,
    "How long a device export file stays downloadable, seconds (then it answers 404 and is deleted).",
    60,
    2_592_000,
  ),
  importMaxBytes: integer(
    "IOT_IMPORT_MAX_BYTES",
    33_554_432,
    "Largest device import file, bytes (a larger one answers 400 at once).",
    1_024,
    1_073_741_824,
  ),
  firmwareMaxBytes: integer(
    "IOT_FIRMWARE_MAX_BYTES",
    2_097_152,
    "Largest firmware package an operator uploads, bytes (kept in <IOT_DATA_DIR>/firmwares; a larger one answers 400). At most 3,000,000: a package goes to the LwM2M adapter in base64 in one command, within gRPC's 4 MiB.",
    1_024,
    3_000_000,
  ),
  publicHost: text(
    "IOT_PUBLIC_HOST",
    "localhost",
    "Host name devices use to reach the adapters (Form 2 broker addresses).",
  ),
  // The MQTT adapter reads the same three variables to listen (-1 turns its listener off: advertised as "").
  mqttPort: integer(
    "IOT_MQTT_PORT",
    1883,
    "MQTT port, as advertised to devices (the MQTT adapter listens on it; -1: off).",
    -1,
    65535,
  ),
  mqttsPort: integer(
    "IOT_MQTTS_PORT",
    8883,
    "MQTT over TLS port, as advertised (the MQTT adapter listens on it; -1: off).",
    -1,
    65535,
  ),
  mqttssPort: integer(
    "IOT_MQTTSS_PORT",
    8884,
    "MQTT over mutual TLS port, as advertised (the MQTT adapter listens on it; -1: off).",
    -1,
    65535,
  ),
  coapPort: port("IOT_COAP_PORT", 5683, "CoAP port, as advertised."),
  coapsPort: integer(
    "IOT_COAPS_PORT",
    5684,
    "CoAP over DTLS with pre-shared keys port, as advertised (the CoAP adapter listens on it; -1: off, advertised as empty).",
    -1,
    65535,
  ),
  coapssPort: integer(
    "IOT_COAPSS_PORT",
    5685,
    "CoAP over DTLS with client certificates port, as advertised (the CoAP adapter listens on it; -1: off, advertised as empty).",
    -1,
    65535,
  ),
  // Northbound (docs/northbound.md): the outbox, webhooks, the live stream and NATS JetStream.
  outboxRetentionHours: integer(
    "IOT_OUTBOX_RETENTION_HOURS",
    24,
    "How long northbound events stay in the outbox, hours: how far a webhook, NATS or Last-Event-ID can catch up.",
    1,
    8_760,
  ),
  webhookAllowPrivate: flag(
    "IOT_WEBHOOK_ALLOW_PRIVATE",
    false,
    "Service admin: let webhooks target loopback, private and link-local addresses (refused by default).",
  ),
  webhookTimeoutMs: integer("IOT_WEBHOOK_TIMEOUT_MS", 10_000, "Longest wait for a webhook's answer, ms.", 100, 120_000),
  webhookRetryBaseMs: integer(
    "IOT_WEBHOOK_RETRY_BASE_MS",
    1_000,
    "First retry delay of a failed delivery, ms; doubled per retry.",
    10,
    3_600_000,
  ),
  webhookRetryMaxMs: integer(
    "IOT_WEBHOOK_RETRY_MAX_MS",
    300_000,
    "Longest retry delay of a failed delivery, ms.",
    10,
    86_400_000,
  ),
  webhookDisableAfter: integer(
    "IOT_WEBHOOK_DISABLE_AFTER",
    86_400,
    "A webhook failing with no success for this long is disabled (disabledReason says why), seconds.",
    1,
    2_592_000,
  ),
  streamKeepaliveMs: integer(
    "IOT_STREAM_KEEPALIVE_MS",
    15_000,
    "Period of the keepalive comments of GET /stream, ms.",
    100,
    300_000,
  ),
  streamResumeMax: integer(
    "IOT_STREAM_RESUME_MAX",
    10_000,
    "Most events Last-Event-ID may replay on GET /stream (older ids resume at the window's start).",
    0,
    1_000_000,
  ),
  natsUrl: text("IOT_NATS_URL", undefined, "nats://host:port of a NATS server with JetStream; unset: no NATS."),
  natsStream: text("IOT_NATS_STREAM", "IOT", "Name of the JetStream stream holding subjects iot.>."),
  natsMaxAgeHours: integer(
    "IOT_NATS_MAX_AGE_HOURS",
    24,
    "Retention of the JetStream stream: messages older than this are removed, hours.",
    1,
    8_760,
  ),
  natsMaxBytes: integer(
    "IOT_NATS_MAX_BYTES",
    1_073_741_824,
    "Retention of the JetStream stream: at most this many bytes (oldest removed first).",
    1_048_576,
    1_099_511_627_776,
  ),
  metricsToken: metricsTokenSetting,
  logLevel: oneOf("IOT_LOG_LEVEL", "info", "Log level: fatal, error, warn, info, debug, trace.", [
    "fatal",
    "error",
    "warn",
    "info",
    "debug",
    "trace",
  ]),
};

/** The central node's typed configuration. */
export type CentralConfig = ConfigOf<typeof centralSettings>;

/** Reads the central node's configuration from the environment. */
export const readCentralConfig = (env: Record<string, string | undefined>): CentralConfig =>
  readConfig(centralSettings, env);

/**
 * Form 2's broker address strings (`<host>:<port>`), from the advertised host and ports; a listener that is
 * off (-1) is advertised as "" so devices are never sent to a port where nothing listens.
 */
export function brokerAddresses(c: CentralConfig): Record<string, string> {
  const at = (port: number) => (port < 0 ? "" : `${c.publicHost}:${port}`);
  return {
    mqttBroker: at(c.mqttPort),
    mqttsBroker: at(c.mqttsPort),
    mqttssBroker: at(c.mqttssPort),
    coapBroker: at(c.coapPort),
    coapsBroker: at(c.coapsPort),
    coapssBroker: at(c.coapssPort),
  };
}
