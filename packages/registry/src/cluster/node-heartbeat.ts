import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../store/schema.js";

/** How often a node beats, ms. */
export const HEARTBEAT_MS = 2_000;
/** A node whose last beat is older than this is gone, ms: with the beat period, a kill -9 shows within 8 s. */
export const NODE_EXPIRY_MS = 6_000;

/** A central node as every node sees it (health, broadcast targets). */
export interface ClusterNode {
  nodeId: string;
  apiAddress: string;
  grpcAddress: string;
  startedAt: number;
  heartbeatAt: number;
  stoppedAt: number | null;
  /** Beating and not stopped. */
  alive: boolean;
}

/** True while the node beats and did not stop. */
const isAlive = (n: { heartbeatAt: number; stoppedAt: number | null }, now = Date.now()): boolean =>
  n.stoppedAt === null && now - n.heartbeatAt <= NODE_EXPIRY_MS;

/** Every node known to the database, newest first (gone ones stay listed until the reaper forgets them). */
export async function listNodes(db: Kysely<Database>, now = Date.now()): Promise<ClusterNode[]> {
  const rows = await db.selectFrom("clusterNodes").selectAll().orderBy("startedAt", "desc").execute();
  return rows.map((r) => ({ ...r, alive: isAlive(r, now) }));
}

/**
 * This node's row in `cluster_nodes`: written at start, its `heartbeat_at` renewed every HEARTBEAT_MS, and
 * `stopped_at` set by a clean stop so the others see it gone at once (a killed node just stops beating). Keeps
 * the list of live nodes fresh as a side effect, for the routing broadcast.
 */
export class NodeHeartbeat {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> = Promise.resolve();
  private live: ClusterNode[] = [];

  constructor(
    private readonly db: Kysely<Database>,
    readonly nodeId: string,
    private addresses: { apiAddress: string; grpcAddress: string },
    private readonly logger: Logger,
  ) {}

  /** Sets where the node listens (known once its ports are bound), before `start`. */
  setAddresses(addresses: { apiAddress: string; grpcAddress: string }): void {
    this.addresses = addresses;
  }

  /** Writes the row (refusing a node id a live node already uses), then beats. */
  async start(now = Date.now()): Promise<void> {
    const same = await this.db
      .selectFrom("clusterNodes")
      .selectAll()
      .where("nodeId", "=", this.nodeId)
      .executeTakeFirst();
    if (same && isAlive(same, now)) throw new Error(`IOT_NODE_ID ${this.nodeId} is in use by a running node`);
    const row = { ...this.addresses, startedAt: now, heartbeatAt: now, stoppedAt: null };
    await this.db
      .insertInto("clusterNodes")
      .values({ nodeId: this.nodeId, ...row })
      .onConflict((oc) => oc.column("nodeId").doUpdateSet(row))
      .execute();
    await this.refresh(now);
    this.timer = setInterval(() => {
      this.beating = this.beat().catch((err: unknown) => this.logger.warn({ err }, "node heartbeat failed"));
    }, HEARTBEAT_MS);
    this.timer.unref();
  }

  /** The other nodes alive at the last beat. */
  otherLiveNodes(): string[] {
    return this.live.filter((n) => n.alive && n.nodeId !== this.nodeId).map((n) => n.nodeId);
  }

  /**
   * The other nodes alive now, read again from the database: a node started since the last beat is among them. What
   * is routed must reach it (a takeover of a session it already holds), not wait up to HEARTBEAT_MS to be seen.
   */
  async otherLiveNodesNow(): Promise<string[]> {
    await this.refresh(Date.now());
    return this.otherLiveNodes();
  }

  /** Renews the beat and re-reads the node list. */
  async beat(now = Date.now()): Promise<void> {
    await this.db
      .updateTable("clusterNodes")
      .set({ heartbeatAt: now, stoppedAt: null })
      .where("nodeId", "=", this.nodeId)
      .execute();
    await this.refresh(now);
  }

  /** Marks the node stopped: the others see it gone at once. */
  async stop(now = Date.now()): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    await this.db
      .updateTable("clusterNodes")
      .set({ stoppedAt: now })
      .where("nodeId", "=", this.nodeId)
      .execute()
      .catch((err: unknown) => this.logger.warn({ err }, "marking the node stopped failed"));
  }

  private async refresh(now: number): Promise<void> {
    this.live = await listNodes(this.db, now);
  }
}
