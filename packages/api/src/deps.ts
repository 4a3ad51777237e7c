import type {
  Caller,
  ClusterNodeView,
  CommandRouter,
  LiveUpdates,
  LoginLimiter,
  Resolver,
  SessionTable,
  Store,
} from "@iot/registry";
import type { View } from "./view.js";

/** Everything the REST API needs, handed in by the composition root. */
export interface AppDeps {
  store: Store;
  /** HMAC secret that signs bearer tokens. */
  tokenSecret: string;
  /** Bearer token lifetime, seconds. */
  tokenTtlSeconds: number;
  /** Failed logins allowed per client address and per username within the window; more answer 429. */
  loginMaxFailures: number;
  /** The failed-login window, seconds: also how long a refusal lasts at most. */
  loginWindowSeconds: number;
  /** Where failed logins are counted; default this process's memory (several nodes pass the database's). */
  loginLimiter?: LoginLimiter | undefined;
  /** Several nodes: the nodes and the adapters each holds, for the health report. Unset on a single node. */
  cluster?: { nodes(): Promise<ClusterNodeView[]> } | undefined;
  /** The singleton jobs (schedules, sweeps, outbox…) this node runs now, for the health report. */
  jobs?: (() => string[]) | undefined;
  sessions: SessionTable;
  /** Pushes policy and proxy-subscription changes to live sessions. */
  live: LiveUpdates;
  commands: CommandRouter;
  /** Told after writes that gateway configurations are built from (the Modbus channel configuration push). */
  configChanges: { tenantChanged(tenantId: string): void };
  nodeId: string;
  /** Record form of the whole API (1 or 2). */
  form: "1" | "2";
  /** Device listener addresses shown in Form 2 device details (mqttBroker, mqttsBroker, …). */
  brokers: Record<string, string>;
  startedAt: number;
  /** IOT_METRICS_TOKEN: when set, `GET /metrics` needs `Authorization: Bearer <it>`; unset, it is open. */
  metricsToken?: string | undefined;
  /** How long a device export file stays downloadable, seconds (default 86400: 24 hours). */
  exportTtlSeconds?: number;
  /** Largest device import file, bytes (default IMPORT_MAX_BYTES, 32 MiB). */
  importMaxBytes?: number;
  /** Folder of uploaded firmware packages (`<IOT_DATA_DIR>/firmwares`); unset, firmware uploads answer 503. */
  firmwareDir?: string | undefined;
  /** Largest firmware package, bytes (IOT_FIRMWARE_MAX_BYTES, default 2 MiB). */
  firmwareMaxBytes?: number;
  /** Webhook settings of the service admin (IOT_WEBHOOK_*); defaults: private targets refused, 10 s timeout. */
  webhooks?: {
    allowPrivate: boolean;
    timeoutMs: number;
    /** Resolves webhook hosts (tests pass their own); default the system resolver. */
    resolve?: Resolver | undefined;
  };
  /** The live stream: keepalive comment period and how many events `Last-Event-ID` may replay at most. */
  stream?: { keepaliveMs: number; resumeMax: number; pollMs: number };
  /** Called with unexpected errors (the answer is a bare INTERNAL_ERROR). */
  logError: (err: unknown) => void;
  /** Called with what is no fault of the service, e.g. a client that aborted its request. */
  logDebug?: (message: string, err: unknown) => void;
}

/** Hono environment: the authenticated caller travels in the context. */
export interface Env {
  Variables: { caller: Caller; view: View };
}
