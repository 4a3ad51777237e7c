import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createAdaptorServer } from "@hono/node-server";
import type { Server as HttpServer } from "node:http";
import type { Logger } from "pino";
import { StartupError, enableDefaultMetrics, listenError } from "@iot/config";
import { createApp } from "@iot/api";
import { consoleRoutes } from "@iot/console";
import {
  LiveUpdates,
  CommandRouter,
  firmwareDownlinks,
  ModbusConfigPush,
  ConnectivityWriter,
  GatewayRelay,
  SessionTable,
  bootstrapAdmin,
  markStaleOffline,
  serviceCa,
  openRegistryStore,
  trackReplicas,
  startGrpcServer,
  stopGrpcServer,
  tokenSecret,
  SQLITE_FILE_NAME,
  failInterruptedTasks,
  Cluster,
  JobLeases,
  databaseLoginLimiter,
  describeCluster,
  lockSqliteDataDir,
  SQLITE_LOCK_FILE_NAME,
  withStartupLock,
  type BootstrapResult,
  type DatabaseStateChange,
  type SqliteNodeLock,
} from "@iot/registry";
import { brokerAddresses, type CentralConfig } from "./config.js";
import { addSingletonJobs, type PipelineRef } from "./central-jobs.js";
import { createPrivateFile, secureDataDir, type Tightened } from "./secure-data-dir.js";

/** A running central node. */
export interface Central {
  apiPort: number;
  grpcPort: number;
  bootstrap: BootstrapResult;
  stop(): Promise<void>;
}

/** How long the REST API keeps an idle keep-alive connection, ms: past any client's own idle timeout. */
const API_KEEP_ALIVE_MS = 65_000;

/** Addresses only this host can reach. */
const LOOPBACK = ["127.0.0.1", "::1", "localhost"];

/** grpc-js reports a taken port inside a message; make it the usual errno shape. */
function grpcBindError(err: unknown): unknown {
  const message = String((err as Error)?.message ?? err);
  return /EADDRINUSE/.test(message) ? Object.assign(new Error(message), { code: "EADDRINUSE" }) : err;
}

/**
 * Starts registry, gRPC server and REST API on one store. Ports given as 0
 * are chosen by the OS; the bound ones are returned.
 */
/** How the central node runs beyond its configuration. */
export interface CentralOptions {
  /**
   * The entry module (main.ts, or its bundle) to start the data pipeline's worker thread from; without it the pipeline
   * runs on the event loop (in-process tests).
   */
  pipelineWorkerEntry?: string | URL;
}

export async function startCentral(
  config: CentralConfig,
  logger: Logger,
  options: CentralOptions = {},
): Promise<Central> {
  // Anyone who reaches the gRPC endpoint can act as an adapter (and have listener certificates signed).
  if (!config.adapterToken && !LOOPBACK.includes(config.grpcHost)) {
    throw new StartupError(
      `IOT_GRPC_HOST=${config.grpcHost} is reachable from other hosts: set IOT_REGISTRY_TOKEN (the same value in every adapter)`,
    );
  }
  // SQLite keeps every secret (tokens, the CA key, the token secret) in the data folder: nobody else may read it.
  const sqlite = !config.databaseUrl;
  const warnTightened = (list: Tightened[]) => {
    for (const t of list) logger.warn(t, `${t.path} was open to other users (mode ${t.was}): tightened to ${t.now}`);
  };
  const readUrls = config.databaseReadUrls ?? [];
  if (sqlite && readUrls.length > 0) {
    throw new StartupError(
      "IOT_DATABASE_READ_URL needs PostgreSQL: SQLite has no read replicas (set IOT_DATABASE_URL, or unset IOT_DATABASE_READ_URL)",
    );
  }
  let lock: SqliteNodeLock | undefined;
  if (sqlite) {
    warnTightened(secureDataDir(config.dataDir));
    createPrivateFile(join(config.dataDir, SQLITE_FILE_NAME));
    // SQLite is single-node: a second node on the same folder refuses to start (the lock dies with its process).
    createPrivateFile(join(config.dataDir, SQLITE_LOCK_FILE_NAME));
    try {
      lock = lockSqliteDataDir(config.dataDir);
    } catch (err) {
      throw new StartupError((err as Error).message);
    }
  }
  // One line when the database stops answering (disk full, connection lost) and one when it answers again.
  const onDatabaseState = (c: DatabaseStateChange) =>
    c.state === "down"
      ? logger.error({ engine: c.engine, err: c.error }, `database ${c.fault}: writes fail until it recovers`)
      : logger.warn({ engine: c.engine, downForMs: c.downForMs }, "database available again");
  const store = await openRegistryStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    batchMaxRows: config.uplinkBatchRows,
    batchMaxDelayMs: config.uplinkBatchDelayMs,
    historyPartitionDays: config.historyPartitionDays,
    // A database from before migration 0034: its history moves into partitions before the node serves.
    onPartitionMove: (table, moved) =>
      moved % 1_000_000 === 0 && logger.info({ table, moved }, "history rows moved into partitions (migration 0034)"),
    onDatabaseState,
    reads:
      readUrls.length === 0
        ? undefined
        : {
            urls: readUrls,
            maxLagSeconds: config.databaseReadMaxLag,
            log: (level, message) => logger[level](message),
          },
    onCheckpointError: (err) =>
      logger.error({ err }, "WAL checkpoint failed: SQLite's own checkpoints take over, on the event loop"),
  }).catch((err: unknown) => {
    lock?.release();
    throw new StartupError(`cannot open the database: ${(err as Error).message}`);
  });
  // Files SQLite made while opening (-wal, -shm) take the database file's mode; check, in case they did not.
  if (sqlite) {
    try {
      warnTightened(secureDataDir(config.dataDir));
    } catch (err) {
      await store.close();
      lock?.release();
      throw err;
    }
  }
  // Nodes starting together on PostgreSQL take turns: the first creates the secret, the CA and the administrator.
  const { bootstrap, secret } = await withStartupLock(store, async () => {
    const bootstrap = await bootstrapAdmin(store.db, {
      username: config.adminUsername,
      password: config.adminPassword,
      tenantName: config.adminTenantName,
    });
    const secret = await tokenSecret(store.db, config.tokenSecret);
    // The service CA exists from the first start on: it signs device and listener certificates.
    await serviceCa(store.db);
    // Import and export tasks run in the node that took them: those a previous run left unfinished never will be
    // (one idle for a minute: a task another node runs now keeps moving).
    const interrupted = await failInterruptedTasks(store.db, ["devices_import", "devices_export"]);
    if (interrupted > 0) logger.warn({ tasks: interrupted }, "marked import/export tasks of a previous run failed");
    return { bootstrap, secret };
  });
  const sessions = new SessionTable();
  const live = new LiveUpdates(store.db, sessions);
  const commands = new CommandRouter(store.db, sessions, config.commandTtl * 1000, {
    durability: store.durability,
    onError: (err) => logger.error({ err }, "command expiry sweep failed"),
    // Firmware update commands name their package; the adapter gets its bytes (docs/devices/lwm2m.md).
    downlinkPayload: firmwareDownlinks(join(config.dataDir, "firmwares")),
  });
  const modbusConfig = new ModbusConfigPush(store.db, sessions, commands, logger);
  const nodeId = config.nodeId ?? `central-${randomBytes(4).toString("hex")}`;
  // PostgreSQL: this node is one of any number on the database (docs/scale-out.md).
  const cluster = sqlite
    ? undefined
    : new Cluster({
        db: store.db,
        databaseUrl: config.databaseUrl,
        nodeId,
        addresses: { apiAddress: "", grpcAddress: "" },
        sessions,
        live,
        commands,
        modbusConfig,
        logger,
      });
  const connectivity = new ConnectivityWriter(
    store.db,
    (id) => sessions.latestSession(id),
    logger,
    cluster?.rows,
    store.durability,
  );
  // The data pipeline reads stored uplinks in id order: one node at a time (a singleton job, below).
  const pipelineRef: PipelineRef = {};

  const graceMs = config.sessionGrace * 1000;
  const grpc = await startGrpcServer(
    {
      db: store.db,
      uplinks: store.uplinks,
      sessions,
      commands,
      nodeId,
      logger,
      sessionGraceMs: graceMs,
      relay: new GatewayRelay(store.db),
      live,
      connectivity,
      pipeline: { wake: () => pipelineRef.current?.wake() },
      modbusConfig,
      adapterRows: cluster?.rows,
      publicHost: config.publicHost,
    },
    config.grpcHost,
    config.grpcPort,
    config.adapterToken,
  ).catch(async (err: unknown) => {
    await store.close();
    lock?.release();
    throw listenError(grpcBindError(err), "central gRPC", config.grpcPort, "IOT_GRPC_PORT");
  });
  const leases = new JobLeases(store.db, nodeId, !sqlite, logger);

  // Process metrics (memory, event-loop lag, CPU) join the registry's at /metrics.
  enableDefaultMetrics();
  if (store.reads) trackReplicas(store.reads);
  const app = createApp({
    store,
    metricsToken: config.metricsToken,
    tokenSecret: secret,
    tokenTtlSeconds: config.tokenTtl,
    loginMaxFailures: config.loginMaxFailures,
    loginWindowSeconds: config.loginWindow,
    // Several nodes count failed logins together, in the database.
    loginLimiter: sqlite
      ? undefined
      : databaseLoginLimiter(store.db, { maxFailures: config.loginMaxFailures, windowMs: config.loginWindow * 1000 }),
    cluster: cluster && { nodes: () => describeCluster(store.db) },
    jobs: () => leases.held(),
    sessions,
    live,
    commands,
    configChanges: modbusConfig,
    nodeId,
    form: config.apiForm,
    brokers: brokerAddresses(config),
    startedAt: Date.now(),
    exportTtlSeconds: config.exportTtl,
    importMaxBytes: config.importMaxBytes,
    firmwareDir: join(config.dataDir, "firmwares"),
    firmwareMaxBytes: config.firmwareMaxBytes,
    webhooks: { allowPrivate: config.webhookAllowPrivate, timeoutMs: config.webhookTimeoutMs },
    stream: { keepaliveMs: config.streamKeepaliveMs, resumeMax: config.streamResumeMax, pollMs: 500 },
    logError: (err) => logger.error({ err }, "request failed"),
    logDebug: (message, err) => logger.debug({ err }, message),
  });
  // The web console (static files, outside /api/v1) calls the same API with a bearer token like any client.
  app.route("/", consoleRoutes({ form: config.apiForm, brokers: brokerAddresses(config) }));
  const http = createAdaptorServer({ fetch: app.fetch });
  // Idle keep-alive sockets stay open longer than clients keep them (undici 4 s, proxies and load balancers about
  // 60 s): with Node's 5 s a client reusing a socket just as the server closed it got ECONNRESET.
  (http as HttpServer).keepAliveTimeout = API_KEEP_ALIVE_MS;
  (http as HttpServer).headersTimeout = API_KEEP_ALIVE_MS + 1_000;
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(config.apiPort, config.apiHost, () => resolve());
  }).catch(async (err: unknown) => {
    await stopGrpcServer(grpc.server, 0);
    await store.close();
    lock?.release();
    throw listenError(err, "central API", config.apiPort, "IOT_API_PORT");
  });
  const apiPort = (http.address() as AddressInfo).port;
  if (cluster) {
    cluster.heartbeat.setAddresses({
      apiAddress: `${config.apiHost}:${apiPort}`,
      grpcAddress: `${config.grpcHost}:${grpc.port}`,
    });
    await cluster.start().catch(async (err: unknown) => {
      await new Promise((resolve) => http.close(resolve));
      await stopGrpcServer(grpc.server, 0);
      await store.close();
      throw new StartupError(`cannot join the other central nodes: ${(err as Error).message}`);
    });
  }

  // Devices left "online" by a previous run whose adapters do not re-announce them within the grace go offline.
  // Several nodes: another node's devices are not this node's to judge; the reaper job handles gone nodes' sessions.
  const sweep = setTimeout(() => {
    if (cluster && cluster.heartbeat.otherLiveNodes().length > 0) return;
    markStaleOffline(store.db, (id) => sessions.isOnline(id), "no adapter reported the session after a restart").then(
      (n) => n > 0 && logger.info({ devices: n }, "marked devices offline after restart"),
      (err: unknown) => logger.error({ err }, "offline sweep failed"),
    );
  }, graceMs);
  sweep.unref();
  // Singleton jobs: on one node at a time (leases move when their node dies); on SQLite simply here.
  addSingletonJobs(leases, {
    store,
    commands,
    config,
    logger,
    nodeId,
    shared: !sqlite,
    graceMs,
    pipeline: pipelineRef,
    pipelineWorkerEntry: options.pipelineWorkerEntry,
  });
  await leases.start();

  return {
    apiPort,
    grpcPort: grpc.port,
    bootstrap,
    async stop() {
      clearTimeout(sweep);
      sessions.clearParked();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        (http as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await stopGrpcServer(grpc.server);
      await connectivity.flush();
      await leases.stop();
      await modbusConfig.stop();
      await commands.stop();
      await cluster?.stop();
      await store.close();
      lock?.release();
    },
  };
}
