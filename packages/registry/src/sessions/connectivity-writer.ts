import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { CONNECT_STATUS } from "../domain/connectivity.js";
import type { Database } from "../store/schema.js";
import { reusableInQuery } from "../store/reusable-query.js";
import { storeOnline, type OnlineState } from "./store-online.js";
import { EitherEngineInsert } from "../store/multi-row-insert.js";
import { queryIn } from "../store/query-in.js";
import type { LiveSession } from "./session-table.js";
import { appendEvents, eventsCommitted } from "../northbound/events.js";
import type { SharedSessions } from "../cluster/session-rows.js";
import { commitIsDurable, type BatchDurability } from "../store/batch-durability.js";

/** What happened to a session: a connect log to write (unless `announced` finds the device online already). */
export interface SessionEvent {
  /**
   * opened/closed write connect log 1/0; `announced` (a session an adapter re-announced after its link came back)
   * writes log 1 only when the device was stored offline; `state` (the device went to sleep or woke up) writes no
   * log, only the device's status.
   */
  readonly kind: "opened" | "closed" | "announced" | "state";
  readonly deviceIntId: number;
  readonly sessionId: string;
  readonly ip: string | null;
  readonly keepAlive: number | null;
  /** Epoch ms of the event. */
  readonly at: number;
  /** Why a session closed, for the connect log. */
  readonly reason?: string;
  /** The adapter instance holding an opened or announced session (several nodes: recorded in cluster_sessions). */
  readonly instanceId?: string;
}

/** The devices of a batch's events (IN list), compiled once per list length (see reusableInQuery). */
const devicesOf = reusableInQuery((db: Kysely<Database>, ids: number[]) =>
  db.selectFrom("devices").select(["id", "tenantId", "deviceId", "deviceName", "deviceStatus"]).where("id", "in", ids),
);

/** Devices with no live session left, stored offline; compiled once per IN list length. */
const storeOffline = reusableInQuery((db: Kysely<Database>, ids: number[]) =>
  db
    .updateTable("devices")
    .set({ deviceStatus: 0, clientIp: null, connectedAt: null })
    .where("id", "in", ids)
    .where("deviceStatus", "!=", 0),
);

/**
 * The connect log INSERT, its SQL text made once per row count (see MultiRowInsert): kysely built the query of each
 * batch's rows anew, and each new batch size was a new SQLite statement to prepare.
 */
const CONNECT_LOG_INSERT = new EitherEngineInsert("connect_logs", [
  "tenant_id",
  "device_id",
  "device_name",
  "device_int_id",
  "connect_status",
  "ip",
  "keep_alive",
  "session_id",
  "reason",
  "create_at",
]);

/** Most events written in one transaction. */
const BATCH_MAX_EVENTS = 500;
/**
 * How long events gather before their batch is written, ms, also after a batch while more wait (unless a full batch
 * waits). A transaction costs the central node far more than an event in it (its statements, the commit and its WAL
 * sync): with 5 ms and the next batch at once, a storm of 2,000 connects/s wrote batches of a few events, at 130–220
 * µs of CPU per event; with 25 ms between batches, 50–65 µs. A device's online state, connect log and online event are
 * stored within about 25 ms plus a commit; nothing waits for them (CONNACK does not).
 */
const BATCH_MAX_DELAY_MS = 25;

/**
 * Writes connect logs and the devices' online state in batches, one transaction per batch, so a reconnect storm of
 * thousands of devices costs a few fsyncs instead of one per device. A device's stored state is not taken from the
 * events but recomputed at each flush from the sessions adapters hold (`liveSession`): whatever order events came
 * in, a device is stored online exactly when a session of it is live, with that session's address and keepalive
 * (and sleeping, 2, while that session's device sleeps).
 */
export class ConnectivityWriter {
  private queue: SessionEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private active: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    /** The device's most recent live session on this node, undefined when it has none. */
    private readonly liveSession: (deviceIntId: number) => LiveSession | undefined,
    private readonly logger: Logger,
    /** Several nodes: session rows are written in the same transaction, and a device held elsewhere stays online. */
    private readonly shared?: SharedSessions,
    /**
     * How a batch becomes durable: the store's (SQLite: committed without the fsync, then the WAL synced off the
     * event loop). A COMMIT with its fsync held the central node's event loop 3.5 ms per batch in a connect storm.
     */
    private readonly durability: BatchDurability = commitIsDurable,
  ) {}

  /** Queues an event, written within about BATCH_MAX_DELAY_MS (see flush()). Never throws: failures are logged. */
  record(event: SessionEvent): void {
    this.queue.push(event);
    if (this.queue.length >= BATCH_MAX_EVENTS) this.kick(0);
    else this.kick(BATCH_MAX_DELAY_MS);
  }

  /** Resolves when every event recorded so far is written (or its batch failed and was logged). */
  async flush(): Promise<void> {
    for (;;) {
      if (this.active) await this.active;
      else if (this.queue.length > 0) this.runBatch();
      else return;
    }
  }

  private kick(delayMs: number): void {
    if (this.active || (this.timer && delayMs > 0)) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.runBatch(), delayMs);
  }

  private runBatch(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.active || this.queue.length === 0) return;
    const batch = this.queue.splice(0, BATCH_MAX_EVENTS);
    this.active = this.write(batch)
      .catch((err: unknown) => this.logger.error({ err, events: batch.length }, "writing session events failed"))
      .finally(() => {
        this.active = undefined;
        if (this.queue.length >= BATCH_MAX_EVENTS) this.kick(0);
        else if (this.queue.length > 0) this.kick(BATCH_MAX_DELAY_MS);
      });
  }

  private async write(batch: SessionEvent[]): Promise<void> {
    const ids = [...new Set(batch.map((e) => e.deviceIntId))];
    await this.durability.transaction(this.db, async (tx) => {
      const devices = new Map((await queryIn(ids, (chunk) => devicesOf(tx, chunk))).map((d) => [d.id, d]));
      const logs = batch.flatMap((e) => {
        const d = devices.get(e.deviceIntId);
        if (!d || e.kind === "state" || (e.kind === "announced" && d.deviceStatus !== 0)) return [];
        return [
          {
            tenantId: d.tenantId,
            deviceId: d.deviceId,
            deviceName: d.deviceName,
            deviceIntId: e.deviceIntId,
            connectStatus: e.kind === "closed" ? CONNECT_STATUS.offline : CONNECT_STATUS.online,
            ip: e.ip,
            keepAlive: e.keepAlive,
            sessionId: e.sessionId,
            reason: e.reason ?? null,
            createAt: e.at,
          },
        ];
      });
      // The values in CONNECT_LOG_INSERT's column order, row after row.
      const values = logs.flatMap((l) => [
        ...[l.tenantId, l.deviceId, l.deviceName, l.deviceIntId, l.connectStatus],
        ...[l.ip, l.keepAlive, l.sessionId, l.reason, l.createAt],
      ]);
      if (logs.length > 0) await CONNECT_LOG_INSERT.run(tx, values);
      // Each connect log is the feed's online or offline event, in the same transaction.
      await appendEvents(
        tx,
        logs.map((l) => ({
          tenantId: l.tenantId,
          deviceIntId: l.deviceIntId,
          type: l.connectStatus === CONNECT_STATUS.offline ? "offline" : "online",
          time: l.createAt,
          data: { sessionId: l.sessionId, ip: l.ip, keepAlive: l.keepAlive, ...(l.reason ? { reason: l.reason } : {}) },
        })),
      );
      await this.shared?.write(tx, batch);
      const offline: number[] = [];
      const online: OnlineState[] = [];
      for (const id of devices.keys()) {
        const live = this.liveSession(id);
        if (live)
          online.push({
            id,
            deviceStatus: live.sleeping ? 2 : 1,
            clientIp: live.clientIp,
            keepAlive: live.keepAlive,
            connectedAt: live.openedAt,
          });
        else offline.push(id);
      }
      await storeOnline(tx, online);
      const elsewhere = this.shared && offline.length > 0 ? await this.shared.heldElsewhere(tx, offline) : undefined;
      if (elsewhere && elsewhere.size > 0)
        offline.splice(0, offline.length, ...offline.filter((id) => !elsewhere.has(id)));
      await queryIn(offline, (chunk) => storeOffline(tx, chunk));
    });
    eventsCommitted();
    this.shared?.committed(batch);
    // Nothing waits for it but the next batch and flush(); the event loop goes on meanwhile.
    await this.durability.sync();
  }
}
