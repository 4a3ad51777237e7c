import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createAdaptorServer } from "@hono/node-server";
import type { Logger } from "pino";
import { StartupError, enableDefaultMetrics, listenError } from "@iot/config";
import { createApp } from "@iot/api";
import { consoleRoutes } from "@iot/console";
import {
  LiveUpdates,
  CommandRouter,
  ModbusConfigPush,
  ConnectivityWriter,
  DataPipeline,
  GatewayRelay,
  SessionTable,
  bootstrapAdmin,
  markStaleOffline,
  serviceCa,
  openStore,
  startGrpcServer,
  stopGrpcServer,
  tokenSecret,
  SQLITE_FILE_NAME,
  RetentionSweeper,
  ScheduleRunner,
  failInterruptedTasks,
  NatsBridge,
  OutboxPruner,
  onDatabaseState,
  WebhookDispatcher,
  type BootstrapResult,
} from "@iot/registry";
import { brokerAddresses, type CentralConfig } from "./config.js";
import { createPrivateFile, secureDataDir, type Tightened } from "./secure-data-dir.js";

/** A running central node. */
export interface Central {
  apiPort: number;
  grpcPort: number;
  bootstrap: BootstrapResult;
  stop(): Promise<void>;
}

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
export async function startCentral(config: CentralConfig, logger: Logger): Promise<Central> {
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
  if (sqlite) {
    warnTightened(secureDataDir(config.dataDir));
    createPrivateFile(join(config.dataDir, SQLITE_FILE_NAME));
  }
  // One line when the database stops answering (disk full, connection lost) and one when it answers again.
  const unwatchDatabase = onDatabaseState((c) =>
    c.state === "down"
      ? logger.error({ engine: c.engine, err: c.error }, `database ${c.fault}: writes fail until it recovers`)
      : logger.warn({ engine: c.engine, downForMs: c.downForMs }, "database available again"),
  );
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    batchMaxRows: config.uplinkBatchRows,
    batchMaxDelayMs: config.uplinkBatchDelayMs,
  }).catch((err: unknown) => {
    throw new StartupError(`cannot open the database: ${(err as Error).message}`);
  });
  // Files SQLite made while opening (-wal, -shm) take the database file's mode; check, in case they did not.
  if (sqlite) {
    try {
      warnTightened(secureDataDir(config.dataDir));
    } catch (err) {
      await store.close();
      throw err;
    }
  }
  const bootstrap = await bootstrapAdmin(store.db, {
    username: config.adminUsername,
    password: config.adminPassword,
    tenantName: config.adminTenantName,
  });
  const secret = await tokenSecret(store.db, config.tokenSecret);
  // The service CA exists from the first start on: it signs device and listener certificates.
  await serviceCa(store.db);
  // Import and export tasks run in the node that took them: those a previous run left unfinished never will be.
  const interrupted = await failInterruptedTasks(store.db, ["devices_import", "devices_export"]);
  if (interrupted > 0) logger.warn({ tasks: interrupted }, "marked import/export tasks of a previous run failed");
  const sessions = new SessionTable();
  const live = new LiveUpdates(store.db, sessions);
  const commands = new CommandRouter(store.db, sessions, config.commandTtl * 1000, {
    onError: (err) => logger.error({ err }, "command expiry sweep failed"),
  });
  const nodeId = `central-${randomBytes(4).toString("hex")}`;
  const connectivity = new ConnectivityWriter(store.db, (id) => sessions.latestSession(id), logger);
  const pipeline = new DataPipeline(store.db, logger);
  await pipeline.start();
  const modbusConfig = new ModbusConfigPush(store.db, sessions, commands, logger);

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
      pipeline,
      modbusConfig,
      publicHost: config.publicHost,
    },
    config.grpcHost,
    config.grpcPort,
    config.adapterToken,
  ).catch(async (err: unknown) => {
    await store.close();
    throw listenError(grpcBindError(err), "central gRPC", config.grpcPort, "IOT_GRPC_PORT");
  });

  // Process metrics (memory, event-loop lag, CPU) join the registry's at /metrics.
  enableDefaultMetrics();
  const app = createApp({
    store,
    metricsToken: config.metricsToken,
    tokenSecret: secret,
    tokenTtlSeconds: config.tokenTtl,
    loginMaxFailures: config.loginMaxFailures,
    loginWindowSeconds: config.loginWindow,
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
    webhooks: { allowPrivate: config.webhookAllowPrivate, timeoutMs: config.webhookTimeoutMs },
    stream: { keepaliveMs: config.streamKeepaliveMs, resumeMax: config.streamResumeMax, pollMs: 500 },
    logError: (err) => logger.error({ err }, "request failed"),
    logDebug: (message, err) => logger.debug({ err }, message),
  });
  // The web console (static files, outside /api/v1) calls the same API with a bearer token like any client.
  app.route("/", consoleRoutes({ form: config.apiForm, brokers: brokerAddresses(config) }));
  const http = createAdaptorServer({ fetch: app.fetch });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(config.apiPort, config.apiHost, () => resolve());
  }).catch(async (err: unknown) => {
    await stopGrpcServer(grpc.server, 0);
    await store.close();
    throw listenError(err, "central API", config.apiPort, "IOT_API_PORT");
  });

  // Devices left "online" by a previous run whose adapters do not re-announce them within the grace go offline.
  const sweep = setTimeout(() => {
    markStaleOffline(store.db, (id) => sessions.isOnline(id), "no adapter reported the session after a restart").then(
      (n) => n > 0 && logger.info({ devices: n }, "marked devices offline after restart"),
      (err: unknown) => logger.error({ err }, "offline sweep failed"),
    );
  }, graceMs);
  sweep.unref();
  // Commands whose TTL ran out while nobody was connected are marked failed without waiting for a connection.
  commands.start();
  // Events, values and logs past IOT_RETENTION_DAYS are deleted in small batches, from a minute after start on.
  const retention = new RetentionSweeper(store.db, {
    retentionDays: config.retentionDays,
    onSwept: (deleted) => logger.info({ deleted }, "deleted rows past IOT_RETENTION_DAYS"),
    onError: (err) => logger.error({ err }, "retention sweep failed"),
  });
  retention.start();
  // Scheduled commands: runs missed while down fire once now when less than one interval late, else are skipped.
  const schedules = new ScheduleRunner(store.db, commands, {
    onSkipped: (s) => logger.warn(s, "skipped a scheduled run missed by one interval or more"),
    onError: (err) => logger.error({ err }, "schedule run failed"),
  });
  schedules.start();
  // Northbound: webhook deliveries from the outbox, which is pruned past IOT_OUTBOX_RETENTION_HOURS.
  const webhooks = new WebhookDispatcher(store.db, nodeId, logger, {
    allowPrivate: config.webhookAllowPrivate,
    timeoutMs: config.webhookTimeoutMs,
    retryBaseMs: config.webhookRetryBaseMs,
    retryMaxMs: config.webhookRetryMaxMs,
    disableAfterMs: config.webhookDisableAfter * 1000,
  });
  webhooks.start();
  const outbox = new OutboxPruner(store.db, config.outboxRetentionHours * 3_600_000, (err) =>
    logger.error({ err }, "outbox prune failed"),
  );
  outbox.start();
  // With IOT_NATS_URL: every event also goes to JetStream, and commands come from NATS.
  let nats: NatsBridge | undefined;
  if (config.natsUrl) {
    nats = new NatsBridge(
      store.db,
      commands,
      {
        url: config.natsUrl,
        stream: config.natsStream,
        maxAgeMs: config.natsMaxAgeHours * 3_600_000,
        maxBytes: config.natsMaxBytes,
      },
      logger,
    );
    try {
      await nats.start();
    } catch (err) {
      await nats.stop().catch(() => undefined);
      nats = undefined;
      logger.error({ err }, `cannot use NATS at ${config.natsUrl}: events are not published there`);
    }
  }

  return {
    apiPort: (http.address() as AddressInfo).port,
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
      await webhooks.stop();
      await nats?.stop();
      await outbox.stop();
      await retention.stop();
      await pipeline.close();
      await modbusConfig.stop();
      await schedules.stop();
      await commands.stop();
      await store.close();
      unwatchDatabase();
    },
  };
}
