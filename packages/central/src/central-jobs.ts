import type { Logger } from "pino";
import {
  DEFAULT_RECONCILE_INTERVAL_MS,
  DataPipeline,
  HistoryPartitionKeeper,
  MqttSessionSweeper,
  NatsBridge,
  OutboxPruner,
  PipelineThread,
  RetentionSweeper,
  ScheduleRunner,
  UplinkCountFolder,
  WebhookDispatcher,
  nodeReaper,
  type CommandRouter,
  type JobLeases,
  type RunningJob,
  type Store,
} from "@iot/registry";
import type { CentralConfig } from "./config.js";

/** What the singleton jobs need from the node. */
export interface SingletonJobDeps {
  store: Store;
  commands: CommandRouter;
  config: CentralConfig;
  logger: Logger;
  nodeId: string;
  /** Several nodes on PostgreSQL (the reaper of gone nodes runs, the pipeline also polls). */
  shared: boolean;
  /** How long a gone node's sessions wait for their adapter to re-announce them elsewhere, ms. */
  graceMs: number;
  /** The running data pipeline, when this node runs it: uplink writes wake it. */
  pipeline: PipelineRef;
  /**
   * The module a worker thread runs the data pipeline from (the central node's entry, which calls runPipelineWorker
   * in such a worker). On SQLite with one, the pipeline runs on that thread; without one, on the event loop.
   */
  pipelineWorkerEntry?: string | URL | undefined;
}

/**
 * The data pipeline this node runs now, if any, as the uplink path sees it: something to wake (a DataPipeline on the
 * event loop, or the PipelineThread of one on a worker).
 */
export interface PipelineRef {
  current?: { wake(): void } | undefined;
}

/** A job object started at once (they all start with `start()` and end with `stop()`). */
function started<T extends { start(): void; stop(): Promise<void> }>(job: T): RunningJob {
  job.start();
  return job;
}

/**
 * Registers the jobs that must run on exactly one node at a time (docs/scale-out.md): each gets a fresh instance
 * whenever this node wins its lease, stopped when it loses it. On SQLite they simply run from start to stop.
 */
export function addSingletonJobs(leases: JobLeases, deps: SingletonJobDeps): void {
  const { store, commands, config, logger, nodeId, shared, graceMs, pipeline } = deps;
  // Commands whose TTL ran out while nobody was connected are marked failed without waiting for a connection.
  leases.add("command-expiry", () => {
    commands.start();
    return { stop: () => commands.stop() };
  });
  // Events, values and logs past IOT_RETENTION_DAYS are deleted in small batches, from a minute after start on.
  leases.add("retention", () =>
    started(
      new RetentionSweeper(store.db, {
        retentionDays: config.retentionDays,
        onSwept: (deleted) => logger.info({ deleted }, "deleted rows past IOT_RETENTION_DAYS"),
        onError: (err) => logger.error({ err }, "retention sweep failed"),
      }),
    ),
  );
  // PostgreSQL: the history tables' partitions of the next spans, made ahead (the store made them at start too).
  if (store.engine === "postgres")
    leases.add("history-partitions", () =>
      started(
        new HistoryPartitionKeeper(store.db, {
          spanDays: config.historyPartitionDays,
          onError: (err) => logger.error({ err }, "making history partitions failed"),
        }),
      ),
    );
  // The tenants' uplink counts: the delta rows the uplink writer adds are folded into one per tenant, and on
  // PostgreSQL (where two races can leave a sum off) reconciled with the rows once an hour.
  leases.add("uplink-counts", () =>
    started(
      new UplinkCountFolder(store.db, {
        reconcileIntervalMs: store.engine === "postgres" ? DEFAULT_RECONCILE_INTERVAL_MS : 0,
        onReconciled: (corrections) =>
          logger.warn({ corrections: Object.fromEntries(corrections) }, "tenant uplink counts were off; reconciled"),
        onError: (err) => logger.error({ err }, "uplink count fold failed"),
      }),
    ),
  );
  // Persistent MQTT sessions past their expiry interval leave the store (connects already ignore them).
  leases.add("mqtt-session-expiry", () =>
    started(new MqttSessionSweeper(store.db, { onError: (err) => logger.error({ err }, "session sweep failed") })),
  );
  // Scheduled commands: runs missed while down fire once now when less than one interval late, else are skipped.
  leases.add("schedules", () =>
    started(
      new ScheduleRunner(store.db, commands, {
        onSkipped: (s) => logger.warn(s, "skipped a scheduled run missed by one interval or more"),
        onError: (err) => logger.error({ err }, "schedule run failed"),
      }),
    ),
  );
  leases.add("data-pipeline", async () => {
    if (deps.pipelineWorkerEntry !== undefined && store.writeLock !== undefined) {
      const thread = await PipelineThread.start(
        {
          entry: deps.pipelineWorkerEntry,
          dataDir: config.dataDir,
          writeLock: store.writeLock,
          logLevel: config.logLevel,
        },
        logger,
      );
      pipeline.current = thread;
      return {
        async stop() {
          if (pipeline.current === thread) pipeline.current = undefined;
          await thread.close();
        },
      };
    }
    const p = new DataPipeline(store.db, logger, { durability: store.durability });
    // What this node stores is handed over as it commits, not read back (the other nodes' uplinks still are).
    const unoffer = store.uplinks.onStored(p.offer);
    await p.start();
    pipeline.current = p;
    // Uplinks stored by the other nodes wake nobody here: look for them twice a second.
    const poll = shared ? setInterval(() => p.wake(), 500) : undefined;
    poll?.unref();
    return {
      async stop() {
        clearInterval(poll);
        unoffer();
        if (pipeline.current === p) pipeline.current = undefined;
        await p.close();
      },
    };
  });
  // Northbound: webhook deliveries from the outbox, which is pruned past IOT_OUTBOX_RETENTION_HOURS.
  leases.add("webhooks", () =>
    started(
      new WebhookDispatcher(store.db, nodeId, logger, {
        allowPrivate: config.webhookAllowPrivate,
        timeoutMs: config.webhookTimeoutMs,
        retryBaseMs: config.webhookRetryBaseMs,
        retryMaxMs: config.webhookRetryMaxMs,
        disableAfterMs: config.webhookDisableAfter * 1000,
      }),
    ),
  );
  leases.add("outbox-pruner", () =>
    started(
      new OutboxPruner(store.db, config.outboxRetentionHours * 3_600_000, (err) =>
        logger.error({ err }, "outbox prune failed"),
      ),
    ),
  );
  // With IOT_NATS_URL: every event also goes to JetStream, and commands come from NATS.
  const natsUrl = config.natsUrl;
  if (natsUrl)
    leases.add("nats", async () => {
      const nats = new NatsBridge(
        store.db,
        commands,
        {
          url: natsUrl,
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
        logger.error({ err }, `cannot use NATS at ${natsUrl}: events are not published there`);
      }
      return nats;
    });
  if (shared) leases.add("node-reaper", () => nodeReaper(store.db, graceMs, logger));
}
