import { sql, type Kysely } from "kysely";
import pg from "pg";
import type { Logger } from "pino";
import type { Database } from "../store/schema.js";

/**
 * Work one node asks the others to do for the device sessions they hold. Each receiver acts on the devices it
 * holds and ignores the rest.
 */
export type ClusterMessage =
  | { kind: "kick"; deviceIntIds: number[]; reason: string }
  | { kind: "policies"; deviceIntIds: number[] }
  | { kind: "subscriptions"; deviceIntIds: number[] }
  | { kind: "retained"; deviceIntIds: number[] }
  | { kind: "tenantLimits"; tenantId: string; maxUplinkRate: number }
  /** Something the tenant's Modbus gateway configurations are built from changed: push to those held here. */
  | { kind: "modbusConfig"; tenantId: string }
  /** Sessions a newer session of their device on another adapter replaced: closed where they are held. */
  | { kind: "replaced"; sessions: Array<{ deviceIntId: number; sessionId: string }>; reason: string }
  /** Queued commands of these devices (or of the devices behind these gateways) are due: send them if held here. */
  | { kind: "deliver"; deviceIntIds: number[] };

/** Longest wait from a message to its batch's commit, ms: messages meanwhile share one row and one NOTIFY per node. */
const FLUSH_DELAY_MS = 2;
/** The safety-net poll of this node's rows, for a NOTIFY lost while the listening connection was down, ms. */
const POLL_MS = 2_000;
/** Rows taken in one go. */
const DRAIN_ROWS = 100;

/** The NOTIFY channel of a node (node ids are at most 40 characters of [A-Za-z0-9_-]). */
const nodeChannel = (nodeId: string): string => `iot_node_${nodeId}`;

/**
 * Routing between central nodes through PostgreSQL (DESIGN §1): messages are rows of `cluster_messages`, one row
 * per target node per batch, and a NOTIFY on the target's channel — issued once per node per batch, in the
 * batch's transaction — only wakes it. NOTIFY serializes commits on a global lock, so it is never sent per message.
 * The receiver takes (deletes) its rows in id order; a slow poll catches whatever a lost notification left.
 */
export class ClusterBus {
  private queue: ClusterMessage[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private listener: pg.Client | undefined;
  private poll: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly databaseUrl: string,
    private readonly nodeId: string,
    /** The other live nodes, read at each flush. */
    private readonly targets: () => string[] | Promise<string[]>,
    private readonly handle: (message: ClusterMessage) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  /** Listens on this node's channel and takes what is already waiting. */
  async start(): Promise<void> {
    await this.listen();
    this.poll = setInterval(() => this.wake(), POLL_MS);
    this.poll.unref();
    this.wake();
  }

  /** Sends a message to every other live node (within a few ms, batched). Never throws: failures are logged. */
  broadcast(message: ClusterMessage): void {
    this.queue.push(message);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flushing = this.flushing.then(() => this.flush());
    }, FLUSH_DELAY_MS);
  }

  /** Sends what is queued, then stops listening. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.flushing = this.flushing.then(() => this.flush());
    }
    await this.flushing;
    await this.draining;
    await this.listener?.end().catch(() => undefined);
    this.listener = undefined;
  }

  /** Writes the queued messages: one row per live target node, then one NOTIFY each, in one transaction. */
  private async flush(now = Date.now()): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const body = JSON.stringify(batch);
    try {
      const nodes = await this.targets();
      if (nodes.length === 0) return;
      await this.db.transaction().execute(async (tx) => {
        await tx
          .insertInto("clusterMessages")
          .values(nodes.map((nodeId) => ({ nodeId, body, createAt: now })))
          .execute();
        for (const nodeId of nodes) await sql`select pg_notify(${nodeChannel(nodeId)}, '')`.execute(tx);
      });
    } catch (err) {
      this.logger.error({ err, messages: batch.length }, "routing to other nodes failed");
    }
  }

  /** Takes this node's rows (a wake-up during a drain runs one more). */
  private wake(): void {
    if (this.stopped && !this.draining) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain()
      .catch((err: unknown) => this.logger.error({ err }, "reading routed messages failed"))
      .finally(() => {
        this.draining = undefined;
        if (this.again && !this.stopped) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async drain(): Promise<void> {
    for (;;) {
      const rows = await this.db
        .deleteFrom("clusterMessages")
        .where("id", "in", (eb) =>
          eb
            .selectFrom("clusterMessages")
            .select("id")
            .where("nodeId", "=", this.nodeId)
            .orderBy("id")
            .limit(DRAIN_ROWS),
        )
        .returning(["id", "body"])
        .execute();
      rows.sort((a, b) => a.id - b.id);
      for (const row of rows)
        for (const message of JSON.parse(row.body) as ClusterMessage[])
          await this.handle(message).catch((err: unknown) =>
            this.logger.error({ err, kind: message.kind }, "a routed message failed"),
          );
      if (rows.length < DRAIN_ROWS) return;
    }
  }

  /** A dedicated connection LISTENs; when it drops, it is opened again (the poll covers the gap). */
  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on("notification", () => this.wake());
    client.on("error", (err) => this.logger.warn({ err }, "the LISTEN connection failed"));
    client.on("end", () => {
      if (this.stopped || this.listener !== client) return;
      this.listener = undefined;
      setTimeout(() => void this.listen().catch(() => undefined), 1_000).unref();
    });
    try {
      await client.connect();
      await client.query(`listen ${client.escapeIdentifier(nodeChannel(this.nodeId))}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn({ err }, "cannot LISTEN for routed messages: retrying (polling meanwhile)");
      setTimeout(() => void this.listen().catch(() => undefined), 1_000).unref();
      return;
    }
    if (this.stopped) await client.end().catch(() => undefined);
    else this.listener = client;
  }
}
